import time


def retry_with_backoff(action, attempts=3, delay=0.5):
    """Call action until it succeeds, sleeping twice as long after each failure."""
    for attempt in range(attempts):
        try:
            return action()
        except OSError:
            if attempt == attempts - 1:
                raise
            time.sleep(delay * 2**attempt)
