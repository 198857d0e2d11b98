"""Run a notebook in a kernel of this environment that cannot lose its ports to another.

With TCP (Jupyter's default), the parent picks a kernel's five ports free, closes them, and the
kernel binds them a moment later: a kernel started meanwhile (the second-setting runs start two
at a time, the exercise notebooks one, nbval's workers theirs) can take one, and the kernel dies
before it answers. CI saw it once ("Kernel died before replying to kernel_info", 02-spec-sheets'
second setting). These kernels talk over Unix sockets in a directory of their own instead, which
cannot collide, and a kernel that still dies before its first reply is started once more, with
a warning: a failure to start is not the notebook's.
"""
from __future__ import annotations

import os
import tempfile
import warnings
from pathlib import Path

#: What nbclient raises when the kernel process ends before its first reply.
KERNEL_START_FAILURE = "Kernel died before replying to kernel_info"


def current_env_kernel(ipc_dir: str):
    """A kernel manager for `python3` in this environment (sys.executable), as nbval's
    --nbval-current-env starts it, talking over Unix sockets under `ipc_dir`."""
    from ipykernel.kernelspec import RESOURCES, get_kernel_dict
    from jupyter_client import KernelManager
    from jupyter_client.kernelspec import KernelSpec

    km = KernelManager(kernel_name="python3", transport="ipc", ip=os.path.join(ipc_dir, "k"))
    km._kernel_spec = KernelSpec(resource_dir=RESOURCES, **get_kernel_dict())
    return km


def execute_notebook(nb, folder: Path, *, timeout: int, env: dict | None = None,
                     name: str = "notebook") -> None:
    """Execute `nb` in place from `folder` (its cells' outputs are replaced); `env` is the
    kernel's environment (default: this process's)."""
    from nbclient import NotebookClient

    for attempt in (1, 2):
        with tempfile.TemporaryDirectory(prefix="llmarith-kernel-") as ipc_dir:
            km = current_env_kernel(ipc_dir)
            try:
                NotebookClient(nb, km=km, timeout=timeout,
                               resources={"metadata": {"path": str(folder)}}).execute(
                    env=dict(os.environ) if env is None else env)
                return
            except RuntimeError as error:
                if attempt == 2 or KERNEL_START_FAILURE not in str(error):
                    raise
                warnings.warn(f"{name}: {error}; starting a second kernel", stacklevel=2)
            finally:  # a kernel manager passed in is not shut down by nbclient
                if km.has_kernel:
                    km.shutdown_kernel(now=True)
