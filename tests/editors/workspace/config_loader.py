"""Reading settings from disk."""


def parse_config_file(path):
    """Parse a key=value config file into a dict, skipping comments."""
    settings = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.strip()
            if line and not line.startswith("#"):
                key, _, value = line.partition("=")
                settings[key.strip()] = value.strip()
    return settings
