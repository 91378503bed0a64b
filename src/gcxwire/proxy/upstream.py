"""One upstream MCP server: a child process speaking JSON-RPC lines on stdio.

The process is watched, not only its stdout: a server that exits while a
grandchild keeps its stdout open still ends the relay (after a short drain),
and its whole process group is signalled whenever it stops, so no helper it
started outlives it. On Linux the server also gets ``SIGKILL`` if the proxy
itself dies without cleaning up (``kill -9``): ``PR_SET_PDEATHSIG``.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import os
import signal
import sys
from collections.abc import Callable, Mapping, Sequence

from ..errors import UpstreamGone
from .framing import LineReader

__all__ = ["BASE_ENV", "Upstream", "server_env"]

log = logging.getLogger(__name__)

# How long a server gets to exit after its stdin closes (Python servers take
# ~0.3 s, Node ~0.01 s), and then after SIGTERM, before SIGKILL.
EXIT_AFTER_EOF_TIMEOUT = 2.0
EXIT_AFTER_SIGTERM_TIMEOUT = 2.0
# How long to wait for a SIGKILLed process to be reaped.
REAP_TIMEOUT = 2.0
# How long to keep relaying a server's output after its process exited (a
# grandchild may still hold the pipe open); then its group is signalled.
DRAIN_AFTER_EXIT_TIMEOUT = 2.0
# How often a server's exit status is looked at: while it stops (and once its
# stdout has closed), and while it runs with its stdout open. Each look wakes
# the proxy up; 50 a second cost ~1.5 ms of CPU per second.
EXIT_POLL = 0.02
RUNNING_EXIT_POLL = 0.5
# Windows has no SIGKILL; its SIGTERM already means TerminateProcess.
_KILL: signal.Signals = getattr(signal, "SIGKILL", signal.SIGTERM)
_PR_SET_PDEATHSIG = 1

# What an isolated server still gets from our environment: enough to find
# programs, a home, a locale, temp and TLS files.
BASE_ENV = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TMPDIR",
    "TZ",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "SYSTEMROOT",
    "COMSPEC",
    "PATHEXT",
    "APPDATA",
    "LOCALAPPDATA",
    "USERPROFILE",
)


def server_env(
    environ: Mapping[str, str],
    own: Mapping[str, str],
    pass_env: Sequence[str] | None,
) -> dict[str, str]:
    """A server's environment: all of ``environ`` (``pass_env`` is ``None``),
    or only :data:`BASE_ENV` plus the names in ``pass_env`` (a trailing ``*``
    matches a prefix); then the server's ``own`` variables on top."""
    if pass_env is None:
        return {**environ, **own}
    names = set(BASE_ENV) | {name for name in pass_env if not name.endswith("*")}
    prefixes = tuple(name[:-1] for name in pass_env if name.endswith("*"))
    kept = {k: v for k, v in environ.items() if k in names or (prefixes and k.startswith(prefixes))}
    return {**kept, **own}


async def _exited(process: asyncio.subprocess.Process, timeout: float | None) -> int | None:
    """The exit status once the process has exited, ``None`` after ``timeout``.

    ``Process.wait()`` also waits for the pipes to close (Python 3.11), which
    never happens while a grandchild holds them, so the status is polled.
    """
    loop = asyncio.get_running_loop()
    deadline = None if timeout is None else loop.time() + timeout
    while process.returncode is None:
        if deadline is not None and loop.time() >= deadline:
            return None
        await asyncio.sleep(EXIT_POLL)
    return process.returncode


def _die_with_us() -> Callable[[], None] | None:
    """A ``preexec_fn`` asking Linux to SIGKILL the child when we die; ``None`` elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != parent:  # we died before the request took effect
            os._exit(1)

    return preexec


class _StdoutCut(Exception):
    """A server's stdout stops counting: it exited, a grandchild holds the pipe."""


class Upstream:
    """Spawn, talk to and stop one server process.

    The server gets ``env`` (by default our full environment plus its own
    variables: a filtered environment breaks ``uvx`` and TLS), its own process
    group (``npx``/``uvx`` start grandchildren that must die with it) and our
    stderr as its stderr.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        name: str,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        full_env: Mapping[str, str] | None = None,
    ) -> None:
        if not argv:
            raise ValueError("an upstream needs a command")
        self.argv = list(argv)
        self.name = name
        self._env = dict(full_env) if full_env is not None else {**os.environ, **(env or {})}
        self._cwd = cwd
        self._process: asyncio.subprocess.Process | None = None
        self._lines: LineReader | None = None
        self._eof = asyncio.Event()
        self._cut = asyncio.Event()  # set when its stdout stops counting
        self._reaper: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._eof = asyncio.Event()
        self._cut = asyncio.Event()
        self._process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=None,
            env=self._env,
            cwd=self._cwd,
            start_new_session=True,
            preexec_fn=_die_with_us(),
        )
        assert self._process.stdout is not None
        self._lines = LineReader.from_stream(self._process.stdout)
        self._reaper = asyncio.ensure_future(self._reap(self._process))
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
        """The next line the server wrote; ``None`` once its stdout is closed, or
        once the process has exited and a grandchild kept stdout open too long."""
        if self._lines is None:
            raise RuntimeError(f"upstream {self.name!r} is not started")
        if self._cut.is_set():
            return None
        try:  # awaited directly: a task per read would cost two more loop turns a line
            line = await self._lines.readline()
        except _StdoutCut:
            return None
        if line is None:
            self._eof.set()
        return line

    async def _reap(self, process: asyncio.subprocess.Process) -> None:
        """Once the server exits: let its output end, then signal what is left of
        its process group, and stop reading if the pipe is still held open."""
        while process.returncode is None:  # looked at often only once stdout has closed
            if self._eof.is_set():
                await asyncio.sleep(EXIT_POLL)
            else:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._eof.wait(), RUNNING_EXIT_POLL)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._eof.wait(), DRAIN_AFTER_EXIT_TIMEOUT)
        self._signal_group(signal.SIGTERM, process)
        if not self._eof.is_set():
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._eof.wait(), EXIT_AFTER_SIGTERM_TIMEOUT)
            self._signal_group(_KILL, process)
        self._cut.set()
        if not self._eof.is_set():
            log.warning("%s exited but something it started holds its stdout", self.name)
            self._cut_stdout(process)

    def _cut_stdout(self, process: asyncio.subprocess.Process) -> None:
        """End a read of the server's stdout waiting there."""
        if process.stdout is not None:
            process.stdout.set_exception(_StdoutCut())

    async def reaped(self) -> None:
        """Until the exit is handled: its process group signalled, its stdout done."""
        if self._reaper is not None:
            await asyncio.shield(self._reaper)

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
        return await _exited(self.process, timeout)

    async def stop(self) -> int:
        """Close stdin, then SIGTERM, then SIGKILL the process group, each bounded;
        once the server is gone, what is left of its group is signalled too.

        The caller must keep reading the server's stdout meanwhile, or a server
        blocked on a full pipe never gets to exit.
        """
        self.close_stdin()
        status = await self.wait(EXIT_AFTER_EOF_TIMEOUT)
        if status is None:
            log.info("%s still running after stdin EOF, sending SIGTERM", self.name)
            self._signal_group(signal.SIGTERM, self.process)
            status = await self.wait(EXIT_AFTER_SIGTERM_TIMEOUT)
        if status is None:
            log.warning("%s ignored SIGTERM, sending SIGKILL", self.name)
            self._signal_group(_KILL, self.process)
            status = await self.wait(REAP_TIMEOUT)
        if status is None:  # unkillable (stopped, traced): give up rather than hang
            log.error("%s could not be reaped", self.name)
            return -int(_KILL)
        await self.reaped()  # its group is cleaned up before we return
        return status

    def _signal_group(self, sig: signal.Signals, process: asyncio.subprocess.Process) -> None:
        try:
            if hasattr(os, "killpg"):
                os.killpg(process.pid, sig)
            elif process.returncode is None:  # no process groups (Windows): the server alone
                process.send_signal(sig)
        except (ProcessLookupError, PermissionError):
            pass
