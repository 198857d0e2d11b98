#!/usr/bin/env bash
# Regenerate the committed outputs of every notebook under notebooks/.
#
# Runs each notebook top to bottom, in place, on the `python3` kernel of the interpreter that
# runs this script (the active environment, else the project's .venv), then
# strips volatile metadata while keeping outputs and execution counts, which nbval needs.
# Idempotent: a second run leaves the files byte for byte the same.
#
#   bash scripts/regenerate_outputs.sh                      # every notebook
#   bash scripts/regenerate_outputs.sh notebooks/foo.ipynb  # some of them
#
# Review the output diff before committing: the outputs are the book's claims.
set -euo pipefail

cd "$(dirname "$0")/.."
# The interpreter: $PYTHON if set; else the active environment's python3; else the project's
# .venv (so `make outputs` works without activating it).
if [ -z "${PYTHON:-}" ]; then
    if [ -z "${VIRTUAL_ENV:-}" ] && [ -x .venv/bin/python ]; then
        PYTHON=.venv/bin/python
    else
        PYTHON=python3
    fi
fi

if [ "$#" -gt 0 ]; then
    notebooks=("$@")
else
    mapfile -t notebooks < <(find notebooks -name '*.ipynb' -not -path '*/.ipynb_checkpoints/*' | LC_ALL=C sort)
fi
if [ "${#notebooks[@]}" -eq 0 ]; then
    echo "no notebooks found" >&2
    exit 1
fi

# Execute in place with nbclient, on the `python3` kernelspec (jupyter_client starts it with
# this interpreter), in the notebook's own folder as nbval does. Consecutive stream outputs are
# merged: the kernel may split one print() into several messages depending on timing, which
# would make the stored outputs differ from run to run.
"$PYTHON" - "${notebooks[@]}" <<'PY'
import os
import sys

import nbformat
from nbclient import NotebookClient

for path in sys.argv[1:]:
    print(f"executing {path}", flush=True)
    nb = nbformat.read(path, as_version=4)
    cwd = os.path.dirname(os.path.abspath(path))
    NotebookClient(nb, kernel_name="python3", timeout=600,
                   resources={"metadata": {"path": cwd}}).execute()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        merged = []
        for out in cell.outputs:
            prev = merged[-1] if merged else None
            if (out.output_type == "stream" and prev is not None
                    and prev.output_type == "stream" and prev.name == out.name):
                prev.text += out.text
            else:
                merged.append(out)
        cell.outputs = merged
    nbformat.write(nb, path)
PY

# Keep outputs, execution counts and cell ids (custom ids such as `widget-serving` too; nbstripout
# would renumber them); drop timestamps and other volatile metadata.
"$PYTHON" -m nbstripout --keep-output --keep-count --keep-id "${notebooks[@]}"
echo "regenerated ${#notebooks[@]} notebook(s)"
