"""A Swift file read as the compiler reads it, as far as the architecture checks need: comments dropped, string
literals (plain, multi-line, raw, with interpolations) told apart from code. The checks then look for SQL in the
strings' text, however it is spread over lines, and for calls in the code, whatever their receiver is named."""
from dataclasses import dataclass


@dataclass
class Literal:
    line: int
    text: str  # the literal's content, interpolations replaced by a space


@dataclass
class Source:
    code: list  # the file's lines with comments blanked and each literal replaced by `"@L<its index>"`
    literals: list  # Literal


def read(text):
    code, literals = [], []
    line, current = 1, []
    i, n = 0, len(text)

    def emit(ch):
        nonlocal line
        if ch == "\n":
            code.append("".join(current))
            current.clear()
            line += 1
        else:
            current.append(ch)

    def string_at(start):
        """Reads the literal starting at `start` (its `#`s or opening quote); returns its end and content."""
        j = start
        hashes = 0
        while text[j] == "#":
            hashes += 1
            j += 1
        multi = text.startswith('"""', j)
        j += 3 if multi else 1
        closing = ('"""' if multi else '"') + "#" * hashes
        escape = "\\" + "#" * hashes
        content = []
        while j < n:
            if text.startswith(closing, j):
                return j + len(closing), "".join(content)
            if text.startswith(escape, j):
                k = j + len(escape)
                if k < n and text[k] == "(":  # an interpolation: skip to its matching parenthesis
                    depth, k = 1, k + 1
                    while k < n and depth:
                        if text[k] == "(":
                            depth += 1
                        elif text[k] == ")":
                            depth -= 1
                        elif text[k] == '"':
                            k, _ = string_at(k)
                            continue
                        k += 1
                    content.append(" ")
                    j = k
                    continue
                content.append(text[k] if k < n else "")
                j = k + 1
                continue
            if not multi and text[j] == "\n":
                return j, "".join(content)  # unterminated: stop at the line's end
            content.append(text[j])
            j += 1
        return n, "".join(content)

    while i < n:
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    if text[i] == "\n":
                        emit("\n")
                    i += 1
            continue
        j = i
        while j < n and text[j] == "#":
            j += 1
        if j < n and text[j] == '"' and (j == i or text[i] == "#"):
            start_line = line
            end, content = string_at(i)
            literals.append(Literal(start_line, content))
            for ch in f'"@L{len(literals) - 1}"':
                emit(ch)
            for ch in text[i:end]:
                if ch == "\n":
                    emit("\n")
            i = end
            continue
        emit(text[i])
        i += 1
    code.append("".join(current))
    return Source(code, literals)
