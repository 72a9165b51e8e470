"""Stopping a real process at a chosen moment: poll a condition on the files it writes, freeze the process
(SIGSTOP) the moment the condition holds, check that it still holds while frozen, then SIGKILL. The kill is
therefore known to have landed inside the window the condition describes."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable


def kill_inside(process: subprocess.Popen[bytes], inside: Callable[[], bool], timeout: float = 120) -> bool:
    """SIGKILL `process` while `inside()` holds; False when it finished (or the window closed) first."""
    deadline = time.monotonic() + timeout
    while process.poll() is None and time.monotonic() < deadline:
        if inside():
            os.kill(process.pid, signal.SIGSTOP)
            landed = inside()  # frozen: nothing moves between this check and the kill
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
            return landed
    if process.poll() is None:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        raise TimeoutError(f"the condition never held within {timeout} s")
    return False
