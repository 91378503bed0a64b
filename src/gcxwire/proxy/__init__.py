"""A stdio MCP proxy that re-encodes tabular tool results and slims tool definitions.

Run it as ``gcxwire proxy [options] -- <server command> [args...]`` or
``gcxwire proxy [options] --servers gateway.json``; see docs/proxy.md. The modules, one job each:

- :mod:`.framing`: newline-delimited lines with no length limit;
- :mod:`.jsonrpc`: message classification, pending requests, error answers;
- :mod:`.upstream`: spawning and stopping one server process;
- :mod:`.link`: one server as the relay sees it (pending requests, rewriter, crash answers);
- :mod:`.relay`: the single-server relay, the client pump plus one link;
- :mod:`.gateway`, :mod:`.gateway_config`: several servers behind one endpoint (``--servers``);
- :mod:`.interceptor`: which answers to rewrite, and how;
- :mod:`.tabular`, :mod:`.slim`, :mod:`.lifecycle`, :mod:`.presets`: its parts;
- :mod:`.codecs`: the door to gcxwire's codecs;
- :mod:`.stats`, :mod:`.options`, :mod:`.cli`: counters, settings, entry point.
"""

from .cli import main
from .options import ProxyOptions

__all__ = ["ProxyOptions", "main"]
