"""The twin fixture really swaps: under ``[py]`` no gcxwire module calls an extension leaf."""

from __future__ import annotations

import pytest

from gcxwire import _impl, _speedups_py


def test_every_module_runs_on_the_twin_under_test(twin: str) -> None:
    if not _impl.USE_EXTENSIONS:
        pytest.skip("only the pure twin exists in this build")
    from gcxwire import _speedups

    wanted = _speedups if twin == "c" else _speedups_py
    other = _speedups_py if twin == "c" else _speedups
    other_leaves = {id(getattr(other, leaf)) for leaf in _speedups_py.__all__}
    held = [
        f"{m.__name__}.{name}"
        for m in _impl._leaf_users()
        for name, value in vars(m).items()
        if id(value) in other_leaves
    ]
    assert held == []
    from gcxwire import _gcx_decode, _gcx_section

    # vars(): the leaves are imported names there, not re-exported ones.
    assert vars(_gcx_section)["encode_table"] is wanted.encode_table
    assert vars(_gcx_decode)["decode_rows"] is wanted.decode_rows


def test_unknown_twin_is_refused() -> None:
    with pytest.raises(ValueError, match="Unknown twin"):
        with _impl.use_twin("rust"):
            pass
