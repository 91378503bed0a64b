"""lines_fit_go: the tile look that answers without splitting says what the split says."""

from __future__ import annotations

import pytest

from gcxwire._gcx_encode import _TILE, GO_LINE_BYTES, lines_fit_go


def _by_lines(text: str) -> bool:
    # The definition: every LF-separated line within the Go decoder's UTF-8 bytes.
    return all(
        len(line.encode("utf-8", "surrogatepass")) <= GO_LINE_BYTES for line in text.split("\n")
    )


@pytest.mark.parametrize(
    "text",
    [
        ("x" * 1000 + "\n") * 5000,  # every tile holds an LF
        ("x" * 1000 + "\n") * 5000 + "\U0001f525" * (GO_LINE_BYTES // 4 + 1),  # a long last line
        "\U0001f525" * (2 * _TILE - 1) + "\n" + "x" * 10,  # just short of two tiles: fits
        "a\n" + "\U0001f525" * (GO_LINE_BYTES // 4) + "\n" + "b" * 10,  # 4 bytes short: fits
        "a\n" + "\U0001f525" * (GO_LINE_BYTES // 4 + 1),  # one character too many
        "\n".join(["y" * (_TILE - 1)] * 6),  # an LF in each tile, one tile apart
        "y" * (_TILE + 5) + "\n" + "y" * (GO_LINE_BYTES + 1),  # ASCII, a byte too long
    ],
    ids=["short-lines", "long-last-line", "two-tiles-less-one", "at-the-limit", "past-the-limit",
         "lf-per-tile", "ascii-past-the-limit"],
)  # fmt: skip
def test_lines_fit_go_is_the_per_line_check(text: str) -> None:
    assert lines_fit_go(text) is _by_lines(text)
