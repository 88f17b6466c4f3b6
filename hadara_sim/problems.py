"""Problems found in a user's input files (component sets, scenarios), reported all at once."""

from __future__ import annotations

import numbers
import os
import re
import stat
import tomllib
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input file: where (file, line, field) and what."""

    file: str
    line: int | None
    field: str  # the column, key or key path at fault; "" when it is the file as a whole
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


class InputError(ValueError):
    """An input file failed validation; `problems` lists every problem found."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


# tomllib recurses into each [ or { it reads: values nested some 300 deep were "unexpected RecursionError"
TOO_DEEP = "values nested too deeply for a TOML reader (hundreds of [ or { inside each other): flatten them"


def toml_error_line(err: tomllib.TOMLDecodeError, text: str) -> int | None:
    """The line of a TOML syntax error (Python < 3.14 has it only in the message)."""
    line = getattr(err, "lineno", None)
    if line is None:
        found = re.search(r"line (\d+)", str(err))
        line = int(found.group(1)) if found else None
    if line is None and "end of document" in str(err):
        line = text.count("\n") + (not text.endswith("\n"))
    return line


def backslash_hint(text: str, line: int | None) -> str:
    """A hint for a TOML error on a line with a backslash in a "..." string, as a Windows path is written
    ("C:\\Users\\me" said only "Invalid hex value", "C:\\sets" "Unescaped '\\' in a string"); else ""."""
    lines = text.splitlines()
    if not line or line > len(lines) or not re.search(r'"[^"]*\\', lines[line - 1]):
        return ""
    return ("; a backslash in \"...\" starts an escape: write a Windows path in single quotes ('C:\\sets\\mine') "
            "or with slashes (\"C:/sets/mine\")")


def as_path(value, what: str) -> Path:
    """`value` (a str or path) as a Path, else TypeError naming `what`: a notebook's 5, None or dict
    stopped inside pathlib ("expected str, bytes or os.PathLike object")."""
    if isinstance(value, (str, os.PathLike)):
        # Path("") is the current folder: simulate(out="") scattered a run's files into the notebook's folder
        if not os.fspath(value):
            raise ValueError(f"{what} is an empty string, not a path ('.' names the current folder)")
        return Path(value)
    raise TypeError(f"{what} is a path (a str or pathlib.Path), not {type(value).__name__} {repr(value)[:60]}")


def not_a_file(path: Path) -> str | None:
    """What `path` is when it is there but no regular file (a link followed): "a folder", "a named pipe
    (FIFO)", "a device" or "a socket"; None for a regular file or a path that cannot be looked up (its
    reading says why). Reading a named pipe waits for a writer, for ever (as `cat` does), and SIGTERM
    with it: such a path is refused before it is opened."""
    try:
        mode = path.stat().st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode):
        return None
    return ("a folder" if stat.S_ISDIR(mode) else "a named pipe (FIFO)" if stat.S_ISFIFO(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a device")


class NotText(ValueError):
    """A user's file that is not UTF-8 text: the line where that shows, and the message."""

    def __init__(self, line: int, message: str):
        self.line = line
        super().__init__(message)


def read_text(path: Path) -> str:
    """A user's text file (scenario, component set, overrides) as UTF-8, a byte order mark dropped (as
    Notepad and Excel write one); NotText naming the line and the fix for another encoding: Python's
    "'utf-8' codec can't decode byte 0xff in position 0" said neither. Windows PowerShell's `>` and
    Notepad's "Unicode" save UTF-16, which without its byte order mark is a NUL beside every letter."""
    data = path.read_bytes()
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or (len(data) >= 4 and 0 in (data[1] | data[3], data[0] | data[2])):
        raise NotText(1, "is UTF-16 text (as Windows PowerShell's `>` and Notepad's \"Unicode\" save), not UTF-8: "
                         "save it as UTF-8")
    data = data.removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n").replace(b"\r", b"\n")  # as open() reads lines
    if b"\x00" in data:  # no text holds one: a results part or a workbook given for a text file
        raise NotText(data[:data.index(b"\x00")].count(b"\n") + 1,
                      "is not a text file (a NUL byte on this line: a Parquet part, an Excel .xlsx workbook?): "
                      "give the text file, saved as UTF-8")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        raise NotText(line, f"is not UTF-8 text (byte 0x{data[err.start]:02x} on this line: Latin-1 or "
                            "Windows-1252?): save it as UTF-8") from None


def ascii_whole(text: str, signed: bool = False) -> int | None:
    """`text` as a whole number in the digits 0-9 (with `signed`, after an optional + or -), else None: int()
    also takes '1_0', spaces and other scripts' digits ('１０'), and str.isdigit() holds for '²', which int()
    refuses."""
    if not re.fullmatch(r"[+-]?[0-9]+" if signed else r"[0-9]+", text):
        return None
    try:
        return int(text)
    except ValueError:  # past int()'s 4,300 digits
        return None


def is_whole(value) -> bool:
    """A whole number: a Python or numpy integer, not a bool (True counted as 1 games)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def raised(err: BaseException) -> str:
    """What a user's code raised, as `Type: message`; a bare `raise KeyboardInterrupt` ended in ': '."""
    return type(err).__name__ + (f": {err}" if str(err) else "")
