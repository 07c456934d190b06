class LruCache:
    """A least-recently-used cache with a fixed capacity."""

    def __init__(self, capacity):
        self.capacity = capacity
        self.entries = {}

    def get(self, key):
        if key not in self.entries:
            return None
        value = self.entries.pop(key)
        self.entries[key] = value
        return value

    def put(self, key, value):
        self.entries.pop(key, None)
        self.entries[key] = value
        if len(self.entries) > self.capacity:
            self.evict_oldest()

    def evict_oldest(self):
        oldest = next(iter(self.entries))
        del self.entries[oldest]
