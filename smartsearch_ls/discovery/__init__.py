"""Which files a search may see: ripgrep's listing, narrowed by globs, read only when safe and useful."""
