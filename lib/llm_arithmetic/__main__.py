"""``python -m llm_arithmetic``: see :mod:`llm_arithmetic.cli`."""
import gc
import os
import sys

from . import COMMAND_RUN, GC_DEFERRED
from .cli import main

if GC_DEFERRED:  # the package's imports ran without the collector: freeze them, then resume
    gc.freeze()
    gc.enable()


def _exit(status: object) -> None:
    """End the process with ``status`` once the output is flushed, without the interpreter's
    shutdown, which frees every object the imports built one by one (a few milliseconds of each
    command's start-up budget, for nothing: the process is gone a moment later). The shutdown
    runs as before where it does more than free memory: an ``atexit`` handler or a thread
    waiting for it, a status that is not an int, or a stream that cannot be flushed (the
    interpreter then reports it as it always has); and :class:`SystemExit` is raised as before
    where the process is not ``python -m llm_arithmetic`` (``COMMAND_RUN`` false: a program
    running this module through :mod:`runpy` and catching it goes on)."""
    import atexit

    threads = sys.modules.get("threading")
    if (not COMMAND_RUN or not isinstance(status, int)
            or getattr(atexit, "_ncallbacks", lambda: 1)()
            or (threads is not None and threads.active_count() > 1)):
        sys.exit(status)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        sys.exit(status)
    os._exit(status)


_exit(main())
