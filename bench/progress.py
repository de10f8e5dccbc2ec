"""A tiny progress bar on stderr for the long phases of the benchmarks.

On a terminal it redraws one line (rate and ETA included) at most 4 times a second;
redirected to a file (a nohup log) it writes a plain line at every 10 %. Kept here
rather than adding a dependency: it is all the benchmarks need.
"""

from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, total: int, label: str, stream=None):
        self.total = max(1, total)
        self.label = label
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self._tty = self.stream.isatty()
        self._started = time.perf_counter()
        self._last_draw = 0.0
        self._last_decile = -1

    def update(self, n: int = 1) -> None:
        self.done += n
        now = time.perf_counter()
        if self._tty:
            if now - self._last_draw >= 0.25 or self.done >= self.total:
                self._last_draw = now
                self._draw(now, "\r")
        else:
            decile = min(10, self.done * 10 // self.total)
            if decile != self._last_decile:
                self._last_decile = decile
                self._draw(now, "")
                self.stream.write("\n")
        self.stream.flush()

    def _draw(self, now: float, prefix: str) -> None:
        elapsed = now - self._started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = (self.total - self.done) / rate if rate > 0 else 0.0
        width = 30
        filled = int(width * min(self.done, self.total) / self.total)
        self.stream.write(f"{prefix}{self.label:<14} [{'#' * filled}{'.' * (width - filled)}] "
                          f"{self.done:>10,}/{self.total:,} {rate:>9,.0f}/s  {elapsed:6.0f}s  eta {left:5.0f}s")

    def close(self) -> None:
        if self._tty:
            self._draw(time.perf_counter(), "\r")
            self.stream.write("\n")
            self.stream.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
