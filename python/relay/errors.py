"""relay's errors as Python exceptions.

Every failing call of relay's C API returns a ``relay_status`` and leaves a
message in ``relay_last_error()``; the package raises the exception class of
that status with the message's words.  Each class also derives from the
built-in exception a Python user would catch for that kind of failure
(``ArgumentError`` is a ``ValueError``, ``PlanIOError`` an ``OSError``, ...).

A failing call changes nothing: no plan, file or buffer is half made.
"""

from __future__ import annotations


class Error(Exception):
    """Base class of relay's exceptions.

    Attributes:
        message: what was wrong, in relay's words (``relay_last_error()``).
        status: the C status name, e.g. ``"RELAY_ERR_ARG"``.
    """

    def __init__(self, message: str, status: str = "RELAY_ERR_ARG"):
        super().__init__(message)
        self.message = message
        self.status = status


class ArgumentError(Error, ValueError):
    """An argument is invalid: out of range, inconsistent, or refused (RELAY_ERR_ARG)."""


class BufferMismatch(ArgumentError, TypeError):
    """A buffer has the wrong element type, is too small, read-only where
    written, not contiguous, or overlaps another: the message names what
    was expected and what was given.  relay never copies a buffer to make
    it fit."""


class OutOfMemory(Error, MemoryError):
    """An allocation failed (RELAY_ERR_NOMEM)."""


class PlanIOError(Error, OSError):
    """A plan file could not be read or written (RELAY_ERR_IO)."""


class FormatError(Error):
    """A plan file or buffer is malformed, truncated or corrupted (RELAY_ERR_FORMAT)."""


class VersionError(FormatError):
    """A plan file has a format version this build cannot read (RELAY_ERR_VERSION)."""


class MismatchError(Error):
    """Ranks disagree: communicator size, plan fingerprint, or a missing
    section (RELAY_ERR_MISMATCH).  Raised on every rank together."""


class MPIError(Error, RuntimeError):
    """An MPI call failed, or MPI is not running (RELAY_ERR_MPI)."""


class UnsupportedError(Error, NotImplementedError):
    """A valid request this build or plan kind cannot serve (RELAY_ERR_UNSUPPORTED)."""


class ReplayTimeout(Error, TimeoutError):
    """A replay passed its deadline (``Executor(..., deadline=)``, RELAY_DEADLINE): a peer
    did not take part; the message names which and at which replay each peer is
    (RELAY_ERR_TIMEOUT).  The executor can then only be freed."""


class PeerRefused(Error, RuntimeError):
    """A peer's start of this replay was refused (a bad buffer there): what came
    from it is NaN (RELAY_ERR_PEER).  The message names the peer."""


_BY_STATUS = {
    "RELAY_ERR_ARG": ArgumentError,
    "RELAY_ERR_NOMEM": OutOfMemory,
    "RELAY_ERR_IO": PlanIOError,
    "RELAY_ERR_FORMAT": FormatError,
    "RELAY_ERR_VERSION": VersionError,
    "RELAY_ERR_MISMATCH": MismatchError,
    "RELAY_ERR_MPI": MPIError,
    "RELAY_ERR_UNSUPPORTED": UnsupportedError,
    "RELAY_ERR_TIMEOUT": ReplayTimeout,
    "RELAY_ERR_PEER": PeerRefused,
}


def class_of_status(status: str) -> type[Error]:
    """The exception class raised for a ``relay_status`` name."""
    return _BY_STATUS.get(status, Error)


__all__ = ["Error", "ArgumentError", "BufferMismatch", "OutOfMemory", "PlanIOError", "FormatError",
           "VersionError", "MismatchError", "MPIError", "UnsupportedError", "ReplayTimeout",
           "PeerRefused", "class_of_status"]
