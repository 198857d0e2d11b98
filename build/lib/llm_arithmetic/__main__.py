"""``python -m llm_arithmetic``: see :mod:`llm_arithmetic.cli`."""
import sys

from .cli import main

sys.exit(main())
