"""``encoded_tool``: register an ``mcp`` ``MCPServer`` tool whose results gcxwire encodes.

The tool is registered unstructured, so ``MCPServer`` advertises no
``outputSchema`` and adds no ``structuredContent`` copy; what the function
returns goes through :func:`.result.encode_return`. The ``format`` argument
is a keyword-only parameter of the registered wrapper, so ``MCPServer`` puts it
in the input schema and validates it, and the wrapper keeps it from the function.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from .hint import reading_hint
from .result import (
    FORMAT_ARG,
    FORMAT_DESCRIPTION,
    Format,
    HintMode,
    check_format,
    encode_return,
    sdk_call_tool_result,
)

__all__ = ["encoded_tool", "server_instructions"]

F = TypeVar("F", bound=Callable[..., Any])


def server_instructions(own: str | None = None, format: Format = "auto") -> str:
    """A server's ``instructions`` followed by the reading hint for ``format``."""
    hint = reading_hint(format)
    if not own or not hint:
        return own or hint
    return own if hint in own else f"{own}\n\n{hint}"


def encoded_tool(
    server: Any,
    name: str | None = None,
    *,
    format: Format = "auto",
    format_arg: bool = True,
    hint: HintMode = "instructions",
    **options: Any,
) -> Callable[[F], F]:
    """Like ``@server.tool(...)``, with the result encoded by gcxwire.

    ``format`` is the encoding when the caller does not choose one;
    ``format_arg=False`` leaves the ``format`` argument out of the input schema.
    ``hint="instructions"`` adds the reading hint to the server's
    ``instructions`` (once, however many tools), ``"result"`` puts it before
    each encoded result, ``"none"`` leaves it out. Other keyword arguments
    (``title``, ``description``, ``annotations``...) go to ``server.tool``.
    """
    check_format(format)

    def decorator(fn: F) -> F:
        tool = name or fn.__name__
        wrapper = _wrap(fn, tool, format, format_arg, per_result=hint == "result")
        server.tool(name=tool, structured_output=False, **options)(wrapper)
        if hint == "instructions":  # a caller may pick any format when it has the argument
            _add_instructions(server, "auto" if format_arg else format)
        return fn

    return decorator


def _wrap(
    fn: Callable[..., Any], tool: str, default: Format, format_arg: bool, per_result: bool
) -> Any:
    model = sdk_call_tool_result()

    def finish(value: Any, format: Format) -> Any:
        encoded = encode_return(value, tool=tool, format=format, hint=per_result)
        if encoded is None or model is None:
            return value if encoded is None else encoded
        return model.model_validate(encoded)

    def chosen(kwargs: dict[str, Any]) -> Format:
        return kwargs.pop(FORMAT_ARG, default) if format_arg else default

    async def call_async(*args: Any, **kwargs: Any) -> Any:
        format = chosen(kwargs)
        return finish(await fn(*args, **kwargs), format)

    def call(*args: Any, **kwargs: Any) -> Any:
        format = chosen(kwargs)
        return finish(fn(*args, **kwargs), format)

    # Any: the signature and annotations below are set by hand.
    wrapper: Any = call_async if inspect.iscoroutinefunction(fn) else call
    functools.update_wrapper(wrapper, fn)
    del wrapper.__wrapped__  # MCPServer reads the signature below, not fn's
    signature = inspect.signature(fn, eval_str=True)
    parameters = list(signature.parameters.values())
    if format_arg:
        if FORMAT_ARG in signature.parameters:
            raise ValueError(
                f"Tool {tool!r} has its own {FORMAT_ARG!r} parameter: rename it, "
                "or pass format_arg=False"
            )
        from pydantic import Field

        extra = inspect.Parameter(
            FORMAT_ARG,
            inspect.Parameter.KEYWORD_ONLY,
            default=default,
            annotation=Annotated[Format, Field(description=FORMAT_DESCRIPTION)],
        )
        last = len(parameters)
        if parameters and parameters[-1].kind is inspect.Parameter.VAR_KEYWORD:
            last -= 1
        parameters.insert(last, extra)
    wrapper.__signature__ = signature.replace(
        parameters=parameters, return_annotation=inspect.Signature.empty
    )
    wrapper.__annotations__ = {
        p.name: p.annotation for p in parameters if p.annotation is not inspect.Parameter.empty
    }
    return wrapper


def _add_instructions(server: Any, format: Format) -> None:
    # MCPServer (mcp 2.x) and FastMCP (mcp 1.x) expose `instructions` read-only; the
    # low-level server they wrap holds them.
    for holder in (getattr(server, "_lowlevel_server", None), getattr(server, "_mcp_server", None)):
        if holder is not None and hasattr(holder, "instructions"):
            holder.instructions = server_instructions(holder.instructions, format)
            return
    raise TypeError(
        "Cannot add the reading hint to this server's instructions: pass "
        "hint='none' and instructions=gcxwire.mcp.server_instructions(...)"
    )
