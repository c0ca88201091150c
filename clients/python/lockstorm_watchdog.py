"""A watchdog thread that renews one lease until stopped or a renewal fails."""
import threading

from lockstorm_lock import now


class Watchdog:
    """Calls renew() every `every` seconds, or at the lease's validity
    deadline if that comes first. renew() returns the new deadline
    (monotonic seconds) or raises; the watchdog then reports
    on_renewed(deadline) or, once, on_lost(reason) and stops. A deadline
    reached before a renewal could be made is a loss too. stop() ends the
    thread and waits for it, so no renewal runs after stop() returns; a
    renewal that stop() interrupts reports nothing."""

    def __init__(self, every, deadline, renew, on_renewed, on_lost):
        self.every, self.deadline = every, deadline
        self._renew, self._on_renewed, self._on_lost = renew, on_renewed, on_lost
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while True:
            wait = min(self.every, self.deadline - now())
            if self._stop.wait(max(wait, 0)):
                return
            if now() >= self.deadline:
                self._on_lost("validity elapsed before a renewal")
                return
            try:
                deadline = self._renew()
            except Exception as e:  # a failed renewal, whatever the cause, ends the watch
                if not self._stop.is_set():
                    self._on_lost(f"renewal failed: {e!r}")
                return
            self.deadline = max(self.deadline, deadline)
            if self._stop.is_set():
                return
            self._on_renewed(self.deadline)

    def moved(self, deadline):
        """Tells the watchdog that an extend request moved the deadline."""
        self.deadline = max(self.deadline, deadline)

    def stop(self):
        self._stop.set()
        if threading.current_thread() is not self._thread:
            self._thread.join()
