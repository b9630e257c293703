from mkdocs_examples.cli import main

raise SystemExit(main())
