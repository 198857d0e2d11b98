"""Readers of Hugging Face ``config.json`` files (a step of the split into modules: the whole
of the former ``catalog/readers.py`` is in :mod:`.multimodal` until the next commit)."""
from .multimodal import *  # noqa: F401,F403
from .multimodal import SCHEME_ADJUSTERS, mllama_image_decode  # noqa: F401
