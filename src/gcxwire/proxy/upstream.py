"""One upstream MCP server: a child process speaking JSON-RPC lines on stdio."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Mapping, Sequence

from .framing import LineReader

__all__ = ["Upstream", "UpstreamGone"]

log = logging.getLogger("gcxwire.proxy")

# How long a server gets to exit after its stdin closes (Python servers take
# ~0.3 s, Node ~0.01 s), and then after SIGTERM, before SIGKILL.
EXIT_AFTER_EOF_TIMEOUT = 2.0
EXIT_AFTER_SIGTERM_TIMEOUT = 2.0
# How long to wait for a SIGKILLed process to be reaped.
REAP_TIMEOUT = 2.0
# Windows has no SIGKILL; its SIGTERM already means TerminateProcess.
_KILL: signal.Signals = getattr(signal, "SIGKILL", signal.SIGTERM)


class UpstreamGone(ConnectionError):
    """The upstream's stdin is closed: it exited or crashed."""


class Upstream:
    """Spawn, talk to and stop one server process.

    The server gets our full environment plus ``env`` (a filtered environment
    breaks ``uvx`` and TLS), its own process group (``npx``/``uvx`` start
    grandchildren that must die with it) and our stderr as its stderr.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        name: str,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ) -> None:
        if not argv:
            raise ValueError("an upstream needs a command")
        self.argv = list(argv)
        self.name = name
        self._env = {**os.environ, **(env or {})}
        self._cwd = cwd
        self._process: asyncio.subprocess.Process | None = None
        self._lines: LineReader | None = None

    async def start(self) -> None:
        self._process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=None,
            env=self._env,
            cwd=self._cwd,
            start_new_session=True,
        )
        assert self._process.stdout is not None
        self._lines = LineReader.from_stream(self._process.stdout)
        log.info("started %s (pid %d): %s", self.name, self._process.pid, " ".join(self.argv))

    @property
    def running(self) -> bool:
        """Started, and not yet seen to exit."""
        return self._process is not None and self._process.returncode is None

    @property
    def process(self) -> asyncio.subprocess.Process:
        if self._process is None:
            raise RuntimeError(f"upstream {self.name!r} is not started")
        return self._process

    async def readline(self) -> bytes | None:
        """The next line the server wrote, or ``None`` once its stdout is closed."""
        if self._lines is None:
            raise RuntimeError(f"upstream {self.name!r} is not started")
        return await self._lines.readline()

    async def send(self, line: bytes) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        if stdin.is_closing():
            raise UpstreamGone(self.name)
        try:
            stdin.write(line + b"\n")
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError) as exc:
            raise UpstreamGone(self.name) from exc

    def close_stdin(self) -> None:
        stdin = self.process.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.close()

    async def wait(self, timeout: float | None = None) -> int | None:
        """The exit status, or ``None`` if it is still running after ``timeout``."""
        try:
            return await asyncio.wait_for(self.process.wait(), timeout)
        except asyncio.TimeoutError:
            return None

    async def stop(self) -> int:
        """Close stdin, then SIGTERM, then SIGKILL the process group, each bounded.

        The caller must keep reading the server's stdout meanwhile, or a server
        blocked on a full pipe never gets to exit.
        """
        self.close_stdin()
        status = await self.wait(EXIT_AFTER_EOF_TIMEOUT)
        if status is None:
            log.info("%s still running after stdin EOF, sending SIGTERM", self.name)
            self._signal_group(signal.SIGTERM)
            status = await self.wait(EXIT_AFTER_SIGTERM_TIMEOUT)
        if status is None:
            log.warning("%s ignored SIGTERM, sending SIGKILL", self.name)
            self._signal_group(_KILL)
            status = await self.wait(REAP_TIMEOUT)
        if status is None:  # unkillable (stopped, traced): give up rather than hang
            log.error("%s could not be reaped", self.name)
            return -int(_KILL)
        return status

    def _signal_group(self, sig: signal.Signals) -> None:
        try:
            if hasattr(os, "killpg"):
                os.killpg(self.process.pid, sig)
            else:  # no process groups (Windows): the server alone
                self.process.send_signal(sig)
        except ProcessLookupError:
            pass
