"""Line numbers of the keys and array elements of a TOML document.

`tomllib` parses TOML into plain values without positions, so error messages about a scenario
would have no line to point at. `key_lines(text)` walks the (already valid) text once and maps
every key path it sees to the line where it starts: table headers, `key = value` lines, keys of
inline tables and the elements of arrays, also arrays spread over several lines. A path is a tuple
of keys and array indices, e.g. `("seats", 1, "params", "coin")` for the second `[[seats]]` table.
"""

from __future__ import annotations

_BARE = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


class _Scanner:
    def __init__(self, text: str):
        self.t = text
        self.i = 0
        self.line = 1
        self.lines: dict[tuple, int] = {}
        self.arrays: dict[tuple, int] = {}  # array-of-tables path -> tables seen so far

    # --- characters -----------------------------------------------------------------------

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.t[j] if j < len(self.t) else ""

    def advance(self, n: int = 1):
        for _ in range(n):
            if self.i < len(self.t):
                if self.t[self.i] == "\n":
                    self.line += 1
                self.i += 1

    def skip(self, newlines: bool = True):
        """Spaces, comments and (if allowed) line breaks."""
        while self.i < len(self.t):
            c = self.t[self.i]
            if c in " \t\r" or (newlines and c == "\n"):
                self.advance()
            elif c == "#":
                while self.i < len(self.t) and self.t[self.i] != "\n":
                    self.i += 1
            else:
                return

    def record(self, path: tuple):
        self.lines.setdefault(path, self.line)

    # --- pieces ---------------------------------------------------------------------------

    def string(self) -> str:
        quote = self.peek()
        if self.t.startswith(quote * 3, self.i):
            end = self.t.find(quote * 3, self.i + 3)
            end = len(self.t) if end < 0 else end + 3
            while self.i < len(self.t) and self.t.startswith(quote, end):  # """a"""" quirks
                end += 1
            raw = self.t[self.i + 3:end - 3]
            self.advance(end - self.i)
            return raw
        self.advance()
        out = []
        while self.i < len(self.t) and self.peek() != quote and self.peek() != "\n":
            if quote == '"' and self.peek() == "\\":
                out.append(self.t[self.i:self.i + 2])
                self.advance(2)
                continue
            out.append(self.peek())
            self.advance()
        self.advance()  # closing quote
        text = "".join(out)
        if quote == '"' and "\\" in text:
            try:
                text = text.encode("latin-1", "backslashreplace").decode("unicode_escape")
            except UnicodeDecodeError:
                pass
        return text

    def key(self) -> tuple:
        """A dotted key: bare or quoted parts joined by dots."""
        parts = []
        while True:
            self.skip(newlines=False)
            c = self.peek()
            if c in "\"'":
                parts.append(self.string())
            else:
                start = self.i
                while self.i < len(self.t) and self.t[self.i] in _BARE:
                    self.i += 1
                if self.i == start:
                    raise ValueError(f"no key at line {self.line}")
                parts.append(self.t[start:self.i])
            self.skip(newlines=False)
            if self.peek() == ".":
                self.advance()
                continue
            return tuple(parts)

    def value(self, path: tuple):
        c = self.peek()
        if c == "[":
            self.advance()
            index = 0
            while True:
                self.skip()
                if self.peek() in ("]", ""):
                    self.advance()
                    return
                self.record(path + (index,))
                self.value(path + (index,))
                self.skip()
                if self.peek() == ",":
                    self.advance()
                    index += 1
        elif c == "{":
            self.advance()
            while True:
                self.skip()
                if self.peek() in ("}", ""):
                    self.advance()
                    return
                key = self.key()
                self.record(path + key)
                self.skip()
                self.advance()  # '='
                self.skip()
                self.value(path + key)
                self.skip()
                if self.peek() == ",":
                    self.advance()
        elif c in "\"'":
            self.string()
        else:
            while self.i < len(self.t) and self.t[self.i] not in ",]}\n#":
                self.i += 1

    def resolve(self, key: tuple) -> tuple:
        """A header's key with the current index of every array of tables on its way."""
        path: tuple = ()
        for part in key:
            path += (part,)
            if path in self.arrays:
                path += (self.arrays[path] - 1,)
        return path

    def document(self) -> dict[tuple, int]:
        prefix: tuple = ()
        while True:
            self.skip()
            if self.i >= len(self.t):
                return self.lines
            if self.t.startswith("[[", self.i):
                self.advance(2)
                key = self.key()
                base = self.resolve(key[:-1]) + key[-1:]
                self.record(base)
                self.arrays[base] = self.arrays.get(base, 0) + 1
                prefix = base + (self.arrays[base] - 1,)
                self.record(prefix)
                self.skip(newlines=False)
                self.advance(2)
            elif self.peek() == "[":
                self.advance()
                prefix = self.resolve(self.key())
                self.record(prefix)
                self.skip(newlines=False)
                self.advance()
            else:
                key = self.key()
                path = prefix + key
                for k in range(len(prefix) + 1, len(path) + 1):
                    self.record(path[:k])
                self.skip(newlines=False)
                self.advance()  # '='
                self.skip(newlines=False)
                self.value(path)


def key_lines(text: str) -> dict[tuple, int]:
    """Line (1-based) of every key path and array element in a valid TOML text; best effort:
    what cannot be followed is left out rather than raising."""
    scanner = _Scanner(text)
    try:
        return scanner.document()
    except (ValueError, IndexError):
        return scanner.lines


def line_of(lines: dict[tuple, int], path: tuple) -> int | None:
    """The line of `path`, or of its longest prefix that has one."""
    for k in range(len(path), 0, -1):
        if path[:k] in lines:
            return lines[path[:k]]
    return None
