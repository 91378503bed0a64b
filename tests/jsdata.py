"""Reading the DCP goldens' inputs as dcp-wrap (JavaScript) read them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _js_number(text: str) -> int | float:
    """What JavaScript's JSON.parse sees: an integral float literal (``1.0``) is the number 1."""
    value = float(text)
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def load_js(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"), parse_float=_js_number)
