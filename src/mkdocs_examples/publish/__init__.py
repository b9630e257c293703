"""What a site offers beyond its pages: downloads and notebooks, the error index, output snapshots and their diff."""
