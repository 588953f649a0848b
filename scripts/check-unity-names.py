#!/usr/bin/env python3
"""Names that two source files of one target define, which a unity build cannot compile.

A unity build (CMakeLists.txt: LOCKSIM_UNITY_BUILD, on by default) pastes a target's .cpp
files into one translation unit, so what was private to a file is no longer: two files
that each define `key` in an anonymous namespace, or a `static` function `in_seconds`, or
`using Json = ...` for two types, are a redefinition (or an ambiguity) once they share a
unit. Which
files share one depends on the batch size and on the order of the sources, so a collision
can hide in a local build and break CI's. This check reads the sources as text and fails
on any such name defined in more than one file of a target, whatever the batches.

What it reports, per target, for each of its .cpp files (not the headers they include):
  - everything defined at namespace scope inside an anonymous namespace: functions,
    variables, classes, structs, unions, enums, type aliases and templates of them;
  - outside one: `static`, `inline` and `constexpr` functions, function templates,
    `static` and `inline` variables, `const`/`constexpr` variables (internal linkage
    too), classes, structs, unions and enums defined in the file, type aliases
    (`using X = ...`, `typedef`; but the same alias for the same type, spelled alike, may
    be repeated: `using Json = nlohmann::ordered_json;` in four files is legal in one unit),
    and explicit specializations (`StringMaker<T>`);
  - macros #defined in more than one file (a #define leaks into every later file).
A name counts once per file, whatever its namespace, and overloads of one name in two
files count as a collision: lookup may find both, and one name had better say one thing.

What it does not see (the compiler does, in a build with
-DCMAKE_UNITY_BUILD_BATCH_SIZE=0, which puts every source of a target in one unit):
  - a name a file defines that clashes with a name of a header it does not include, but an
    earlier file of the unit does, or with a namespace an earlier file's `using namespace`
    opens (both ambiguous only in the unit);
  - functions and variables with external linkage defined in two files (the linker already
    refuses those, unity build or not), and anything a macro expands into;
  - code the preprocessor would leave out (#if) is read as if it were in.
It is a tokenizer and a brace counter, not a C++ parser: comments, string, character and
raw string literals and preprocessor lines are skipped, then declarations at namespace
scope are read up to their `;` or body.

Usage (tests/CMakeLists.txt runs it with each target's own sources):
  check-unity-names.py --target NAME SOURCE_DIR 'a.cpp;b.cpp;...' [--target ...]
Exit status: 0 if no name is defined twice in a target, 1 if one is (each is named, with
its files and lines), 2 on bad usage or an unreadable file.
"""

import re
import sys
from pathlib import Path

USAGE = "usage: check-unity-names.py --target NAME SOURCE_DIR 'a.cpp;b.cpp;...' [--target ...]"
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
CLASS_KEYS = {"struct", "class", "union", "enum"}
# Words of a declaration that are never the name it declares.
SPECIFIERS = {
    "static", "const", "constexpr", "consteval", "constinit", "inline", "extern", "volatile",
    "thread_local", "mutable", "typename", "unsigned", "signed", "long", "short", "int", "char",
    "bool", "float", "double", "void", "auto", "noexcept", "override", "final", "decltype",
}


def tokens_of(text):
    """The tokens of a C++ file: identifiers, numbers, punctuation ('::' as one); literals,
    comments and preprocessor lines dropped. Yields (token, line); a #define yields
    ('#define', line) then the macro's name."""
    i, n, line = 0, len(text), 1
    at_line_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
            at_line_start = True
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if c == "#" and at_line_start:
            end = i
            while True:  # a directive runs to an end of line that no backslash continues
                end = text.find("\n", end)
                if end == -1:
                    end = n
                    break
                if text[end - 1] == "\\":
                    end += 1
                    continue
                break
            directive = re.match(r"#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)", text[i:end])
            if directive:
                yield "#define", line
                yield directive.group(1), line
            line += text.count("\n", i, end)
            i = end
            continue
        at_line_start = False
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end == -1 else end
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end == -1 else end + 2
            line += text.count("\n", i, end)
            i = end
            continue
        raw = re.match(r'(?:u8|u|U|L)?R"([^()\\\s]{0,16})\(', text[i:i + 24])
        if raw:
            close = ")" + raw.group(1) + '"'
            end = text.find(close, i + raw.end())
            end = n if end == -1 else end + len(close)
            line += text.count("\n", i, end)
            i = end
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit()):
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] in "_.'" or (text[j] in "+-" and text[j - 1] in "eEpP")):
                j += 1
            yield "0", line
            i = j
            continue
        word = IDENT.match(text, i)
        if word:
            # A literal's prefix or suffix is part of it: u8"x", "x"s, L'a'.
            if i + len(word.group()) < n and text[i + len(word.group())] in "\"'" and word.group() in ("u8", "u", "U", "L"):
                i += len(word.group())
                continue
            yield word.group(), line
            i = word.end()
            continue
        if text.startswith("::", i):
            yield "::", line
            i += 2
            continue
        yield c, line
        i += 1


class Reader:
    """Walks a file's tokens, keeping the stack of namespaces, and notes what each
    declaration at namespace scope defines."""

    def __init__(self, tokens):
        self.tokens = list(tokens)
        self.pos = 0
        self.found = []  # (name, line, what)

    def skip_group(self, open_, close):
        """From an opening token, past its matching close."""
        depth = 0
        while self.pos < len(self.tokens):
            token = self.tokens[self.pos][0]
            self.pos += 1
            if token == open_:
                depth += 1
            elif token == close:
                depth -= 1
                if depth == 0:
                    return

    def read(self, anonymous=False):
        """Declarations up to the '}' that closes the current namespace (or the end)."""
        head = []  # the declaration so far, with any braced initializer collapsed to '{}'
        while self.pos < len(self.tokens):
            token, line = self.tokens[self.pos]
            if token == "#define":
                self.found.append((self.tokens[self.pos + 1][0], line, "macro"))
                self.pos += 2
                continue
            if token == "}":
                self.pos += 1
                return
            if token == ";":
                self.pos += 1
                self.declaration(head, anonymous, body=None)
                head = []
                continue
            if token == "{":
                words = [t for t, _ in head]
                # Inside parentheses a brace is an argument's: `void f(Options o = {}) {`.
                kind = "initializer" if words.count("(") > words.count(")") else self.brace_kind(head)
                if kind == "namespace":
                    self.pos += 1
                    words = [t for t, _ in head if IDENT.fullmatch(t) and t not in ("namespace", "inline")]
                    self.read(anonymous or not words)
                    head = []
                elif kind == "extern":  # extern "C" { ... }
                    self.pos += 1
                    self.read(anonymous)
                    head = []
                elif kind in ("function", "type"):
                    self.skip_group("{", "}")
                    self.declaration(head, anonymous, body=kind)
                    # `struct X {...} x;` and `enum E {...};`: the rest up to ';' declares nothing new we track.
                    head = [("}", line)] if kind == "type" else []
                else:  # a braced initializer
                    self.skip_group("{", "}")
                    head.append(("{}", line))
                continue
            head.append((token, line))
            self.pos += 1

    @staticmethod
    def brace_kind(head):
        words = [t for t, _ in head]
        if words and words[0] in ("namespace", "inline") and "namespace" in words[:2] and "=" not in words:
            return "namespace"
        if words[:1] == ["extern"] and len(words) == 1:
            return "extern"
        if words and words[0] == "}":  # after a type's body: `} name{...};`
            return "initializer"
        depth_angle = 0  # `std::unique_ptr<struct X> x{}` is no struct's body
        for word in strip_template(words):
            if word == "=":
                return "initializer"
            if word == "(":
                return "function"
            if word in CLASS_KEYS and depth_angle == 0:
                return "type"
            if word == "<":
                depth_angle += 1
            elif word == ">":
                depth_angle = max(0, depth_angle - 1)
        return "initializer"

    def declaration(self, head, anonymous, body):
        words = [t for t, _ in head]
        if not words or words[0] == "}":
            return
        line = head[0][1]
        if words[0] == "using":
            if len(words) > 1 and words[1] == "namespace":
                return  # a directive declares nothing
            if "=" in words:  # using X = ...;
                self.found.append((words[1], line, "type alias = " + "".join(words[words.index("=") + 1:])))
            return  # a using-declaration (using a::b;) may be repeated
        if words[0] in ("namespace", "static_assert") or (words[0] == "template" and words[1:2] != ["<"]):
            return  # a namespace alias; an assertion; an explicit instantiation
        if words[0] == "typedef":
            name = last_name(words[1:])
            if name:
                self.found.append((name, line, "type alias = " + "".join(w for w in words[1:] if w != name)))
            return
        template = words[:2] == ["template", "<"]  # a template, or an explicit specialization
        words = strip_template(words)
        if not words or (body is None and words[0] in ("friend", "extern") and "{}" not in words):
            return
        if body is None and words[0] in CLASS_KEYS and "(" not in words:
            return  # a forward declaration (struct X;)
        if body == "type":
            name = class_name(words)
            if name:
                self.found.append((name, line, "type"))
            return
        storage = set(words) & {"static", "const", "constexpr", "consteval", "inline", "extern"}
        if body == "function" or ("(" in words and "=" not in words[: words.index("(")]):
            name, qualified = function_name(words)
            if name is None or qualified or is_macro(name):
                return  # a member defined out of class (Foo::bar), or TEST_CASE(...) and the like
            if body is None:
                return  # a declaration only
            # static: internal linkage; inline, constexpr and templates: a definition per unit.
            if anonymous or template or storage & {"static", "inline", "constexpr", "consteval"}:
                self.found.append((name, line, "function"))
            return
        for name, qualified in variable_names(words):
            if qualified:
                continue
            internal = "static" in storage or (storage & {"const", "constexpr"} and "extern" not in storage)
            if anonymous or internal or "inline" in storage:
                self.found.append((name, line, "variable"))


def strip_template(words):
    """The declaration after its `template <...>` heads and [[attributes]]."""
    words = list(words)
    while words[:1] == ["template"] and words[1:2] == ["<"]:
        depth, i = 0, 1
        while i < len(words):
            if words[i] == "<":
                depth += 1
            elif words[i] == ">":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        words = words[i + 1:]
    while words[:2] == ["[", "["]:
        end = next((i for i in range(len(words) - 1) if words[i] == "]" and words[i + 1] == "]"), len(words))
        words = words[end + 2:]
    return words


def is_macro(name):
    return re.fullmatch(r"[A-Z][A-Z0-9_]*", name) is not None


def class_name(words):
    """`struct [[x]] Name<args> final : Base` -> 'Name' (with <args> for a specialization)."""
    i = next(i for i, w in enumerate(words) if w in CLASS_KEYS)
    i += 1
    if i < len(words) and words[i] in ("class", "struct"):  # enum class
        i += 1
    rest = strip_template(words[i:])  # [[attributes]] between the key and the name
    i = len(words) - len(rest)
    if i >= len(words) or not IDENT.fullmatch(words[i]):
        return None  # an unnamed struct or enum
    name = words[i]
    if i + 1 < len(words) and words[i + 1] == "::":
        return None  # a nested class defined outside (struct Outer::Inner {...})
    if i + 1 < len(words) and words[i + 1] == "<":  # an explicit specialization
        depth, j = 0, i + 1
        while j < len(words):
            depth += {"<": 1, ">": -1}.get(words[j], 0)
            j += 1
            if depth == 0:
                break
        name += "".join(words[i + 1:j])
    return name


def function_name(words):
    """The name before the first '(' outside template arguments, and whether it is qualified."""
    depth = 0
    for i, word in enumerate(words):
        if word == "<":
            depth += 1
        elif word == ">":
            depth = max(0, depth - 1)
        elif word == "(" and depth == 0:
            j = i - 1
            if j >= 0 and words[j] == ">":  # operator< and the like, or a specialization f<T>(...)
                return None, True
            if j >= 0 and IDENT.fullmatch(words[j]):
                if j >= 1 and words[j - 1] == "operator":
                    return None, True
                return words[j], j >= 1 and words[j - 1] == "::"
            return None, True
    return None, True


def last_name(words):
    names = [w for w in words if IDENT.fullmatch(w) and w not in SPECIFIERS]
    return names[-1] if names else None


def variable_names(words):
    """The names of `T a = 1, b{2}, c;` with whether each is qualified (T X::a = ...)."""
    parts, part, depth = [], [], 0
    for word in words:
        if word in "([":
            depth += 1
        elif word in ")]":
            depth -= 1
        elif word == "<":
            depth += 1
        elif word == ">":
            depth = max(0, depth - 1)
        if word == "," and depth == 0:
            parts.append(part)
            part = []
        else:
            part.append(word)
    parts.append(part)
    for index, part in enumerate(parts):
        end = next((i for i, w in enumerate(part) if w in ("=", "{}", "(", "[")), len(part))
        declarator = part[:end]
        names = [i for i, w in enumerate(declarator) if IDENT.fullmatch(w) and w not in SPECIFIERS]
        if not names:
            continue
        i = names[-1] if index == 0 else names[0]
        yield declarator[i], i >= 1 and declarator[i - 1] == "::"


def main(argv):
    targets = []
    args = list(argv)
    while args:
        if args[0] != "--target" or len(args) < 4:
            print(USAGE, file=sys.stderr)
            return 2
        name, directory, sources = args[1], Path(args[2]), args[3]
        files = [directory / s for s in sources.split(";") if s.endswith((".cpp", ".cc", ".cxx"))]
        targets.append((name, files))
        args = args[4:]
    if not targets:
        print(USAGE, file=sys.stderr)
        return 2
    collisions = 0
    files_read = 0
    for target, files in targets:
        where = {}  # name -> {file: (line, what)}
        for path in files:
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as error:
                print(f"check-unity-names: cannot read {path}: {error}", file=sys.stderr)
                return 2
            files_read += 1
            reader = Reader(tokens_of(text))
            reader.read()
            for name, line, what in reader.found:
                where.setdefault(name, {}).setdefault(path, (line, what))
        for name, places in sorted(where.items()):
            kinds = {what for _, what in places.values()}
            if len(places) < 2 or (len(kinds) == 1 and kinds.pop().startswith("type alias = ")):
                continue  # one file, or the same alias for the same type (legal twice in a unit)
            collisions += 1
            listed = ", ".join(f"{p}:{line} ({what.split(' = ')[0]})" for p, (line, what) in sorted(places.items()))
            print(f"{target}: '{name}' is defined in {len(places)} files: {listed}")
    if collisions:
        print(f"check-unity-names: {collisions} name(s) defined in more than one file of a target; a unity "
              "build puts such files in one unit. Share one definition in a header, or give each a name "
              "that says what it is in its file.")
        return 1
    print(f"check-unity-names: no name defined twice in {len(targets)} target(s), {files_read} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
