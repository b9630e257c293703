"""The search indexes of the real site (examples-search): one per language, and what they hold."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

from mkdocs_examples.site import search


@pytest.fixture(scope="module")
def indexes(real_site) -> dict[str, dict]:
    site, _ = real_site
    return {lang: json.loads((site / prefix / "search/search_index.json").read_text()) for lang, prefix in
            [("en", ""), ("zh", "zh/")]}  # fmt: skip


def entry(index: dict, location: str) -> dict:
    return next(doc for doc in index["docs"] if doc["location"] == location)


def test_each_language_has_its_own_index(indexes):
    en, zh = indexes["en"], indexes["zh"]
    assert {doc["location"] for doc in en["docs"]} & {doc["location"] for doc in zh["docs"]}, "same pages"
    assert not any(doc["location"].startswith("zh/") for doc in en["docs"] + zh["docs"])
    assert not any(re.search(r"[\u4e00-\u9fff]", doc["title"]) for doc in en["docs"])
    assert entry(zh, "tensors/cat-and-stack/")["title"].startswith("<code>torch.cat</code> 与")
    assert en["config"]["lang"] == ["en"] and zh["config"]["lang"] == ["en", "zh"]


def test_the_pages_of_a_language_load_its_index(real_site):
    site, _ = real_site
    config = re.compile(r'<script id="__config" type="application/json">(.*?)</script>', re.S)
    zh = json.loads(config.search((site / "zh/tensors/cat-and-stack/index.html").read_text()).group(1))
    en = json.loads(config.search((site / "tensors/cat-and-stack/index.html").read_text()).group(1))
    assert (zh["base"], en["base"]) == ("../../../zh/", "../..")
    # our worker (Material's, with our segmentation of Chinese queries)
    assert zh["search"] == f"../{en['search']}"
    assert "ptSegment" in (site / "zh/tensors/cat-and-stack" / zh["search"]).resolve().read_text()


def test_every_page_loads_the_index_of_its_language_notebook_views_too(real_site):
    site, _ = real_site
    config = re.compile(r'<script id="__config" type="application/json">(.*?)</script>', re.S)
    pages = [p for p in site.rglob("index.html") if "assets" not in p.parts]
    assert len([p for p in pages if "notebooks" in p.parts]) > 80  # the views of both languages
    for page in pages:
        base = json.loads(config.search(page.read_text()).group(1))["base"]
        folder = site / "zh" if page.relative_to(site).parts[0] == "zh" else site
        assert (page.parent / base).resolve() == folder.resolve(), page


def test_chinese_terms_stay_whole_and_tag_their_page(indexes):
    zh = indexes["zh"]
    learning_rate = entry(zh, "optimization/learning-rate/")
    assert "学习率" in learning_rate["title"].split(search.SEGMENT_BREAK), learning_rate["title"]  # jieba: 学习 / 率
    assert entry(zh, "losses/cross-entropy-and-nll/")["tags"] == ["交叉熵", "多分类"]


# An environment's name (render/provenance.py) right after an output, as its label follows it; not a folded note's
# title, which names the environments that print its output ("torch 2.4.1 / torch 2.5.1 print"; a Chinese index
# cuts its words with U+007F: "的\x7f输出")
LABEL = r"</pre>\s*torch [\d.]++(?: · (?:CPU|CUDA|H\d+\w*|Python \d+\.\d+))*+(?! /| prints?\b| 的\W?输出)"


def test_the_index_holds_errors_and_code_names_not_outputs(indexes):
    for index in indexes.values():
        docs = {doc["location"]: doc["text"] for doc in index["docs"]}
        text = docs["tensors/cat-and-stack/#what-each-one-requires"] if index is indexes["en"] else ""
        every = " ".join(docs.values())
        assert not re.search(LABEL, every)  # the label beside each output
        assert "when this site was built" not in every and "实际运行得到" not in every  # the block of environments
        assert "Traceback (most recent call last)" not in every and 'File "examples/' not in every
        assert "RuntimeError: Sizes of tensors must match except in dimension 0." in every
        assert "torch.Size([4, 3])" not in every  # a printed value
        assert "manual_seed" in every  # a name that only code uses
        if text:
            assert "torch.cat torch.ones" in text, text


def test_a_section_index_ranks_below_its_pages(indexes):
    """A section's index lists every page of its section: its entries weigh less (张量拼接 found
    tensors/ before tensors/cat-and-stack/)."""
    for index in indexes.values():
        assert entry(index, "tensors/")["boost"] < 1
        assert all(doc.get("boost", 1) < 1 for doc in index["docs"] if doc["location"].startswith("tensors/#"))
        assert "boost" not in entry(index, "tensors/cat-and-stack/")
        assert "boost" not in entry(index, "")  # the home page is no section's index


def test_a_term_of_several_words_is_a_phrase_and_a_name_is_kept_whole(indexes):
    """A tag is one word of the index: a term the index would cut into words (NaN loss, 多GPU) is a phrase,
    which the worker matches whole and whose words weigh less than a title's; a name (weights_only) is
    matched whole only, its words (weights, only) are in no field."""
    for index in indexes.values():
        separator = re.compile(index["config"]["separator"])
        for doc in index["docs"]:
            assert not [tag for tag in doc.get("tags", []) if separator.search(tag)], doc["location"]
        assert index["config"]["fields"]["phrases"]["boost"] < index["config"]["fields"]["title"]["boost"]
    assert "NaN loss" in entry(indexes["en"], "training/loss-debugging/")["phrases"]
    assert "多GPU" in entry(indexes["zh"], "devices/data-parallel/")["phrases"]
    checkpoints = entry(indexes["en"], "training/checkpoints/")
    assert "weights_only" in checkpoints["names"] and "weights_only" not in checkpoints.get("phrases", [])


def test_a_term_of_a_section_tags_that_section_not_its_page(indexes):
    """data/search_terms.yml: a page's path with `#` and an anchor gives its terms to that section's entry."""
    oom = "errors/cuda/#torchoutofmemoryerror-cuda-out-of-memory-tried-to-allocate-"
    assert "显存不够" in entry(indexes["zh"], oom)["tags"]
    assert "out of memory" in entry(indexes["en"], oom)["phrases"]
    accumulated = "devices/gpu-memory/#不要累加损失张量"  # a term of this section only, not of its page
    assert "显存不够" in entry(indexes["zh"], accumulated)["tags"]
    assert "显存不够" not in entry(indexes["zh"], "devices/gpu-memory/").get("tags", [])


def test_a_terms_location_is_its_pages_with_the_anchor_of_its_section():
    from mkdocs_examples.site import search as hook

    assert hook._url("errors/cuda.md#torchoutofmemoryerror-") == "errors/cuda/#torchoutofmemoryerror-"
    assert hook._url("devices/index.md#对比") == "devices/#对比"
    assert hook._url("devices/gpu-memory.md") == "devices/gpu-memory/"


def test_a_tables_rows_and_a_codes_names_are_lines_of_their_own(indexes):
    """A row of the glossary is a line of the index (a result shows it as one); the names a block of code
    uses are marked, for the worker to search them and show none."""
    text = entry(indexes["en"], "glossary/")["text"]
    assert "<p>broadcasting · 广播 · x * y · Broadcasting</p>" in text, text[:500]
    assert "Term" not in text.split("</p>")[1]  # the header row
    requires = entry(indexes["en"], "tensors/cat-and-stack/#what-each-one-requires")
    assert "<i>torch.cat torch.ones dim</i>" in requires["text"]


def test_the_worker_rewrites_chinese_queries_without_a_textual_wildcard(real_site):
    """Material's worker joined the segments of a Han run with `* ` and then added its own `*`:
    `保存**`, which it listed as missing and left out of the highlight. Ours replaces that rewrite."""
    site, _ = real_site
    config = re.compile(r'<script id="__config" type="application/json">(.*?)</script>', re.S)
    worker = json.loads(config.search((site / "index.html").read_text()).group(1))["search"]
    text = (site / worker).read_text()
    assert 'join("* ")' not in text and "e=ptQuery(e,this.index)" in text


def test_the_label_beside_an_output_is_not_indexed_whatever_data_it_carries():


    from mkdocs_examples.render.provenance import BUILD, Source, Sources
    from mkdocs_examples.site import search as hook
    label = Sources().label(Source(BUILD, {"torch": "2.13.0+cpu", "device": "cpu"}, None), example="a_b.py", cell=3)
    assert "data-mx-example" in label
    indexed = hook._for_index(f"<p>Prose.</p>\n<p>{label}</p>\n<p>More prose.</p>")
    assert "torch 2.13.0" not in indexed and "Prose." in indexed and "More prose." in indexed


def test_the_index_sees_prose_names_errors_and_rows_of_a_page_as_the_site_renders_it():
    """examples-search on a page rendered as the site renders one (code with a title and line numbers, outputs
    under their label, a table): fast, where the tests above read the real site's index."""
    import markdown

    from mkdocs_examples.render.fences import fence
    from mkdocs_examples.site import search as hook
    page = "\n\n".join([
        "# Title {#t}", "Prose.",
        fence("import torch\nx = torch.ones(2)\ny = x.requires_grad\nprint(type(x).__name__)", "python",
              title="examples/a_b.py", linenums=3),
        fence("tensor([1., 1.])", "text", title="Output"),
        fence("RuntimeError: Sizes of tensors must match", "text", title="Output"),
        fence("written in the page", "text"),
        "## Next {#n}", fence("z = torch.ones(1)", "python", title="examples/a_b.py", linenums=9),
        "| Term | 术语 |\n| --- | --- |\n| tensor | `张量` |",
    ])  # fmt: skip
    extensions = ["attr_list", "tables", "pymdownx.highlight", "pymdownx.superfences"]
    configs = {"pymdownx.highlight": {"pygments_lang_class": True}}  # as mkdocs.yml: language-python
    html = markdown.markdown(page, extensions=extensions, extension_configs=configs)
    indexed = hook._for_index(html)
    assert "<p>Prose.</p>" in indexed and "<p><code>torch torch.ones x.requires_grad type</code></p>" in indexed
    assert "import" not in indexed and "a_b.py" not in indexed and "Output" not in indexed  # code, titles, labels
    assert "tensor([1., 1.])" not in indexed and "RuntimeError: Sizes of tensors must match" in indexed
    assert "written in the page" in indexed  # a text block of the page's own, under no label
    assert indexed.index("<p><code>torch.ones</code></p>") > indexed.index('id="n"')  # a new section, names anew
    assert "<p>tensor · <code>张量</code></p>" in indexed and "Term" not in indexed


def test_an_output_with_an_error_is_indexed_without_its_frames_and_each_line_once_a_section():
    """A logged traceback (torch's "Error while creating guard", its frames after the logger's prefix) is
    found by its error lines; its paths and source lines would bring the section to queries of their words."""
    import markdown

    from mkdocs_examples.render.fences import fence
    from mkdocs_examples.site import search as hook
    log = "\n".join([
        "E<time> torch/_guards.py:262] Error while creating guard:",
        "E<time> torch/_guards.py:262]   File \"…/torch/fx/symbolic_shapes.py\", line 4163, in produce_guards",
        "E<time> torch/_guards.py:262]     raise ConstraintViolationError(",
        "E<time> torch/_guards.py:262]     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        "E<time> torch/_guards.py:262] ConstraintViolationError: Constraints violated (batch)!",
    ])  # fmt: skip
    plain = "\n".join([
        "Traceback (most recent call last):",
        '  File "…/convert_list.py", line 3, in <module>',
        "    tolist_shape()",
        "UserError: Constraints violated (batch)!",
        "  because batch was inferred to be a constant (1).",
    ])  # fmt: skip
    page = "\n\n".join([
        "# Title {#t}", *(fence(text, "text", title="Output") for text in (log, plain, plain)),
        "## Next {#n}", fence(plain, "text", title="Output"),
    ])  # fmt: skip
    extensions = ["attr_list", "pymdownx.highlight", "pymdownx.superfences"]
    configs = {"pymdownx.highlight": {"pygments_lang_class": True}}
    indexed = hook._for_index(markdown.markdown(page, extensions=extensions, extension_configs=configs))
    first, second = indexed.split('id="n"')
    assert "Error while creating guard" in first and "ConstraintViolationError: Constraints violated" in first
    assert "symbolic_shapes" not in indexed and "raise" not in indexed and "^" not in indexed  # the frames
    assert "convert_list" not in indexed and "tolist_shape" not in indexed
    for text in (first, second):  # each line once a section, the message's lines under the frames kept
        assert text.count("UserError: Constraints violated (batch)!") == 1
        assert text.count("because batch was inferred to be a constant (1).") == 1
    assert first.count("Traceback (most recent call last):") == 1


def test_a_logged_line_is_indexed_once_a_section_without_what_places_it():
    """Each release's note logs the same guard error from another line of torch/_guards.py, and a warning names
    the example's file and line: what places a line goes, so the section holds each line once."""
    import markdown

    from mkdocs_examples.render.fences import fence
    from mkdocs_examples.site import search as hook
    logs = ["\n".join([
        f"E<time> <pid> torch/_guards.py:{at}] [2/0] Error while creating guard:",
        f"E<time> <pid> torch/_guards.py:{at}] [2/0]     Source: shape_env",
        f"examples/errors/training.py:{at}: FutureWarning: You are using `torch.load` with `weights_only=False`",
    ]) for at in (262, 295)]  # fmt: skip
    page = "\n\n".join(["# Title {#t}", *(fence(log, "text", title="Output") for log in logs)])
    extensions = ["attr_list", "pymdownx.highlight", "pymdownx.superfences"]
    configs = {"pymdownx.highlight": {"pygments_lang_class": True}}
    indexed = hook._for_index(markdown.markdown(page, extensions=extensions, extension_configs=configs))
    assert indexed.count("Error while creating guard:") == 1 and indexed.count("Source: shape_env") == 1
    assert indexed.count("FutureWarning: You are using") == 1
    assert "_guards" not in indexed and "[2/0]" not in indexed and "training.py" not in indexed


def test_a_line_of_the_notes_of_other_releases_is_indexed_once_a_page():
    """torch 2.4 warns on every ``torch.load``: the notes of a page that loads files in each section print the
    warning in each; it is indexed with the first, while the page's own outputs are indexed in each section."""
    import markdown

    from mkdocs_examples.render.fences import fence
    from mkdocs_examples.site import search as hook

    def note(text: str) -> str:
        body = fence(text, "text", title="Output")
        return '??? note mx-other "torch 2.4"\n\n' + "\n".join("    " + line for line in body.splitlines())

    warning = "FutureWarning: You are using `torch.load` with `weights_only=False`"
    own = "UserWarning: TypedStorage is deprecated"
    page = "\n\n".join([
        "# Title {#t}", note(warning), fence(own, "text", title="Output"),
        "## Next {#n}", note(warning), fence(own, "text", title="Output"),
    ])  # fmt: skip
    extensions = ["attr_list", "pymdownx.details", "pymdownx.highlight", "pymdownx.superfences"]
    configs = {"pymdownx.highlight": {"pygments_lang_class": True}}
    first, second = hook._for_index(markdown.markdown(page, extensions=extensions, extension_configs=configs)).split(
        'id="n"'
    )
    assert warning in first and warning not in second
    assert own in first and own in second


def test_the_title_of_a_note_of_other_releases_is_not_indexed_but_an_error_it_holds_is():
    """A note's title names environments ("... CUDA builds without a GPU print"): words of no page's subject, on
    most pages; what the note holds is an output like any other, an error in it found by a pasted message."""
    import markdown

    from mkdocs_examples.render.fences import fence
    from mkdocs_examples.site import search as hook
    body = fence("RuntimeError: Found no NVIDIA driver on your system", "pytb", title="Raised")
    note = '??? note mx-other "torch 2.4\u20132.12 · CUDA builds without a GPU print"\n\n' + \
        "\n".join("    " + line for line in body.splitlines())  # fmt: skip
    page = "\n\n".join(["# Title {#t}", "Prose.", note, '??? note "A note of the page"\n\n    Its words.'])
    extensions = ["attr_list", "pymdownx.details", "pymdownx.highlight", "pymdownx.superfences"]
    indexed = hook._for_index(markdown.markdown(page, extensions=extensions))
    assert "GPU print" not in indexed and "CUDA builds" not in indexed
    assert "Found no NVIDIA driver on your system" in indexed and "Prose." in indexed
    assert "A note of the page" in indexed and "Its words." in indexed  # the page's own notes stay


def test_materials_indexer_leaves_out_the_label_beside_an_output_by_itself():
    """The engine marks each output's label `data-search-exclude`: a site without examples-search indexes none."""
    from material.plugins.search.plugin import Parser  # type: ignore[import-untyped]

    from mkdocs_examples.render.provenance import BUILD, Source, Sources

    sources = Sources()
    built = Source(BUILD, {"torch": "2.13.0+cpu", "device": "cpu"}, None)
    note = sources.labels([built], label="torch 2.13.0", shows=built)
    for label in (sources.label(built, example="a_b.py", cell=3), note):
        parser = Parser()
        parser.feed(f"<h1 id='t'>Title</h1><p>Prose.</p>\n<p>{label}</p>\n")
        parser.close()
        indexed = "".join(part for section in parser.data for part in section.text)
        assert "torch" not in indexed and "Prose." in indexed


def test_each_index_carries_its_languages_synonyms_for_the_worker(indexes):
    """data/search_terms.yml's `synonyms` reach the worker in the index's config; a group that
    is not a list of two words or more stops the build."""

    from mkdocs_examples.site import search as hook
    terms = hook._terms(str(Path(__file__).parent.parent / "data" / "search_terms.yml"))
    assert indexes["zh"]["config"]["synonyms"] == terms["zh"]["synonyms"]
    assert ["GPU", "显卡", "CUDA"] in indexes["zh"]["config"]["synonyms"]
    assert indexes["en"]["config"]["synonyms"] == terms["en"]["synonyms"]
    for wrong in (["GPU"], "GPU, 显卡", [["GPU"]], [["GPU", "<b>显卡</b>"]]):
        with pytest.raises(PluginError):
            hook._synonyms(wrong, "zh")


def test_the_worker_indexes_each_group_of_synonyms_as_one_word(real_site):
    """Material's worker builds the index with our step of the pipeline, which adds a group's first word
    beside each word of the group (search_assets/worker.js, ptOneWord)."""
    site, _ = real_site
    config = re.compile(r'<script id="__config" type="application/json">(.*?)</script>', re.S)
    worker = json.loads(config.search((site / "index.html").read_text()).group(1))["search"]
    text = (site / worker).read_text()
    assert 'this.pipeline.add(ptOneWord),this.ref("location")' in text
    assert "function ptOneWord(" in text
