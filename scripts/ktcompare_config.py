"""ktcompare_config.py -- a described kernel's config (configs/examples/)
read into what Kernel Tuner's tune_kernel takes, for
scripts/kernel_tuner_compare.py.

Two parts, neither of which needs a GPU, cupy or Kernel Tuner:
  - read_config: the libconfig syntax the configs use, into Nodes that
    keep each value's line and place in the text;
  - Expr: the tuner's expression language (tuner/base/expr.h), evaluated
    with its C semantics and written out as Python for Kernel Tuner;

scripts/ktcompare_spec.py builds Kernel Tuner's arguments from them.
"""
import re


class ConfigError(Exception):
    """Bad or inexpressible input; str() names FILE:LINE."""


# ---- the libconfig reader ----

class Node:
    """One value: kind is group, array, list, int, float, bool or string;
    value a dict (group, in order), a list of Nodes, or a scalar; line is
    1-based; start and end bound the value's text."""

    def __init__(self, kind, value, line, start, end):
        self.kind, self.value, self.line = kind, value, line
        self.start, self.end = start, end

    def plain(self):
        if self.kind == "group":
            return {k: v.plain() for k, v in self.value.items()}
        if self.kind in ("array", "list"):
            return [v.plain() for v in self.value]
        return self.value

    def get(self, name):
        return self.value.get(name) if self.kind == "group" else None


_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\n]+|\#[^\n]*|//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<float>[-+]?(?:[0-9]*\.[0-9]+|[0-9]+\.)(?:[eE][-+]?[0-9]+)?
              |[-+]?[0-9]+[eE][-+]?[0-9]+)
  | (?P<hex>0[xX][0-9a-fA-F]+L{0,2})
  | (?P<int>[-+]?[0-9]+L{0,2})
  | (?P<name>[A-Za-z*][-A-Za-z0-9_*]*)
  | (?P<punct>[=:;,{}\[\]()])
""", re.VERBOSE | re.DOTALL)

_ESCAPES = {"\\": "\\", '"': '"', "n": "\n", "t": "\t", "r": "\r",
            "f": "\f"}


def _unescape(text):
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            n = text[i + 1]
            if n == "x" and re.match(r"[0-9a-fA-F]{2}", text[i + 2:i + 4]):
                out.append(chr(int(text[i + 2:i + 4], 16)))
                i += 4
                continue
            out.append(_ESCAPES.get(n, n))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


class _Reader:
    def __init__(self, path, text):
        self.path, self.text = path, text
        self.toks = []
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None:
                self.fail(pos, "unexpected %r" % text[pos])
            if m.lastgroup != "space":
                self.toks.append((m.lastgroup, m.group(), m.start(),
                                  m.end()))
            pos = m.end()
        self.toks.append(("end", "", len(text), len(text)))
        self.i = 0

    def line(self, pos):
        return self.text.count("\n", 0, pos) + 1

    def fail(self, pos, msg):
        raise ConfigError("%s:%d: %s" % (self.path, self.line(pos), msg))

    def peek(self):
        return self.toks[self.i]

    def take(self, kind=None, text=None):
        t = self.toks[self.i]
        if (kind and t[0] != kind) or (text and t[1] != text):
            self.fail(t[2], "expected %s, found %r" %
                      (text or kind, t[1] or "the end"))
        self.i += 1
        return t

    def settings(self, closer):
        out, start = {}, self.peek()[2]
        while self.peek()[1] != closer and self.peek()[0] != "end":
            t = self.take("name")
            if t[1].startswith("@"):
                self.fail(t[2], "directives are not read here")
            if self.peek()[1] not in ("=", ":"):
                self.fail(self.peek()[2], "expected '=' after %s" % t[1])
            self.i += 1
            if t[1] in out:
                self.fail(t[2], "'%s' set twice" % t[1])
            out[t[1]] = self.value()
            if self.peek()[1] in (";", ","):
                self.i += 1
        return out, start

    def value(self):
        t = self.peek()
        kind, text, start = t[0], t[1], t[2]
        if text in ("{", "[", "("):
            self.i += 1
            if text == "{":
                val, _ = self.settings("}")
                end = self.take("punct", "}")[3]
                return Node("group", val, self.line(start), start, end)
            closer = "]" if text == "[" else ")"
            items = []
            while self.peek()[1] != closer:
                items.append(self.value())
                if self.peek()[1] == ",":
                    self.i += 1
                elif self.peek()[1] != closer:
                    self.fail(self.peek()[2], "expected ',' or '%s'" %
                              closer)
            end = self.take("punct", closer)[3]
            return Node("array" if text == "[" else "list", items,
                        self.line(start), start, end)
        self.i += 1
        if kind == "string":
            s, end = _unescape(text[1:-1]), t[3]
            while self.peek()[0] == "string":  # "a" "b" is "ab"
                t2 = self.take("string")
                s, end = s + _unescape(t2[1][1:-1]), t2[3]
            return Node("string", s, self.line(start), start, end)
        if kind == "float":
            return Node("float", float(text), self.line(start), start, t[3])
        if kind in ("int", "hex"):
            return Node("int", int(text.rstrip("L"), 0), self.line(start),
                        start, t[3])
        if kind == "name" and text.lower() in ("true", "false"):
            return Node("bool", text.lower() == "true", self.line(start),
                        start, t[3])
        self.fail(start, "expected a value, found %r" % (text or "the end"))
        return None


def read_config(path):
    """The config at path as a root group Node (ConfigError if malformed).
    root.text holds the file's text."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise ConfigError("%s: cannot read: %s" % (path, e.strerror))
    r = _Reader(path, text)
    val, _ = r.settings(None)
    if r.peek()[0] != "end":
        r.fail(r.peek()[2], "unexpected %r" % r.peek()[1])
    root = Node("group", val, 1, 0, len(text))
    root.text = text
    return root


# ---- the expression language (tuner/base/expr.h) ----

_EXPR_TOKEN = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|[0-9]+)"
                         r"|([A-Za-z_][A-Za-z0-9_]*)"
                         r"|(\|\||&&|==|!=|<=|>=|<<|>>|[-+*/%<>!~&|^?:(),]))")

_FUNCS = {"min": 2, "max": 2, "ceil_div": 2, "abs": 1, "log2": 1,
          "is_pow2": 1, "ceil": 1, "floor": 1}
_LEVELS = [("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="),
           ("<", "<=", ">", ">="), ("<<", ">>"), ("+", "-"),
           ("*", "/", "%")]
_NO_CHAIN = {("==", "!="), ("<", "<=", ">", ">=")}


def _cdiv(a, b, how):
    """C's truncating division, or ceil/floor as expr_code.c rounds."""
    if b == 0:
        raise ArithmeticError("division by zero")
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    inexact = q * b != a
    if how == "ceil" and inexact and (a < 0) == (b < 0):
        q += 1
    elif how == "floor" and inexact and (a < 0) != (b < 0):
        q -= 1
    return q


class Expr:
    """One expression of the tuner's language: parsed once, evaluated with
    the C semantics of tuner/base/expr_code.c (64-bit; / and % truncate),
    and written as Python (py) for Kernel Tuner's strings."""

    def __init__(self, text):
        self.text = text
        self.toks = []
        pos = 0
        while pos < len(text):
            m = _EXPR_TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                if text[pos:].strip() == "":
                    break
                raise ValueError("column %d: unexpected %r" %
                                 (pos + 1, text[pos]))
            if m.group(1):
                self.toks.append(("num", int(m.group(1), 0)))
            elif m.group(2):
                self.toks.append(("name", m.group(2)))
            else:
                self.toks.append(("op", m.group(3)))
            pos = m.end()
        self.toks.append(("end", None))
        self.i = 0
        self.tree = self._conditional()
        if self.toks[self.i][0] != "end":
            raise ValueError("unexpected %r" % (self.toks[self.i][1],))
        del self.toks

    # parsing, C's precedence
    def _peek(self):
        return self.toks[self.i]

    def _op(self, *ops):
        t = self.toks[self.i]
        if t[0] == "op" and t[1] in ops:
            self.i += 1
            return t[1]
        return None

    def _conditional(self):
        c = self._binary(0)
        if self._op("?"):
            a = self._conditional()
            if not self._op(":"):
                raise ValueError("expected ':'")
            b = self._conditional()
            return ("?", c, a, b)
        return c

    def _binary(self, level):
        if level == len(_LEVELS):
            return self._unary()
        ops = _LEVELS[level]
        left = self._binary(level + 1)
        chained = False
        while True:
            op = self._op(*ops)
            if op is None:
                return left
            if ops in _NO_CHAIN and chained:
                raise ValueError("'%s' does not chain" % op)
            chained = True
            left = ("bin", op, left, self._binary(level + 1))

    def _unary(self):
        op = self._op("-", "!", "~", "+")
        if op == "+":
            return self._unary()
        if op:
            return ("un", op, self._unary())
        return self._primary()

    def _primary(self):
        kind, val = self._peek()
        self.i += 1
        if kind == "num":
            return ("num", val)
        if kind == "op" and val == "(":
            e = self._conditional()
            if not self._op(")"):
                raise ValueError("expected ')'")
            return e
        if kind == "name":
            if self._op("("):
                return self._call(val)
            return ("name", val)
        raise ValueError("expected a number, a name or '('")

    def _call(self, name):
        if name not in _FUNCS:
            raise ValueError("'%s' is not a function" % name)
        args = []
        if not self._op(")"):
            while True:
                args.append(self._conditional())
                if self._op(")"):
                    break
                if not self._op(","):
                    raise ValueError("expected ',' or ')'")
        if name in ("min", "max"):
            if len(args) < 2:
                raise ValueError("%s() takes 2 or more arguments" % name)
        elif len(args) != _FUNCS[name]:
            raise ValueError("%s() takes %d argument(s)" %
                             (name, _FUNCS[name]))
        if name in ("ceil", "floor"):
            a = args[0]
            if a[0] != "bin" or a[1] != "/":
                raise ValueError("%s() takes a division: %s(a / b)" %
                                 (name, name))
            return ("call", name + "_div", [a[2], a[3]])
        return ("call", name, args)

    # what it reads
    def names(self, t=None):
        t = self.tree if t is None else t
        if t[0] == "name":
            return {t[1]}
        if t[0] == "num":
            return set()
        kids = t[2] if t[0] == "call" else t[1:] if t[0] == "?" else \
            t[2:]
        out = set()
        for k in kids:
            out |= self.names(k)
        return out

    # C evaluation
    def eval(self, env, t=None):
        t = self.tree if t is None else t
        k = t[0]
        if k == "num":
            return t[1]
        if k == "name":
            if t[1] not in env:
                raise KeyError(t[1])
            return env[t[1]]
        if k == "?":
            return self.eval(env, t[2] if self.eval(env, t[1]) else t[3])
        if k == "un":
            v = self.eval(env, t[2])
            return -v if t[1] == "-" else int(not v) if t[1] == "!" else ~v
        if k == "call":
            vs = [self.eval(env, a) for a in t[2]]
            f = t[1]
            if f == "min":
                return min(vs)
            if f == "max":
                return max(vs)
            if f == "abs":
                return abs(vs[0])
            if f == "log2":
                if vs[0] <= 0:
                    raise ArithmeticError("log2 of %d" % vs[0])
                return vs[0].bit_length() - 1
            if f == "is_pow2":
                return int(vs[0] > 0 and vs[0] & (vs[0] - 1) == 0)
            return _cdiv(vs[0], vs[1],
                         "ceil" if f == "ceil_div" else "floor")
        op = t[1]
        if op == "&&":
            return int(bool(self.eval(env, t[2])) and
                       bool(self.eval(env, t[3])))
        if op == "||":
            return int(bool(self.eval(env, t[2])) or
                       bool(self.eval(env, t[3])))
        a, b = self.eval(env, t[2]), self.eval(env, t[3])
        if op == "/":
            return _cdiv(a, b, "trunc")
        if op == "%":
            return a - b * _cdiv(a, b, "trunc")
        if op in ("<<", ">>"):
            if b < 0 or b > (62 if op == "<<" else 63):
                raise ArithmeticError("shift count %d" % b)
            return a << b if op == "<<" else a >> b
        return {"+": lambda: a + b, "-": lambda: a - b,
                "*": lambda: a * b, "<": lambda: int(a < b),
                "<=": lambda: int(a <= b), ">": lambda: int(a > b),
                ">=": lambda: int(a >= b), "==": lambda: int(a == b),
                "!=": lambda: int(a != b), "&": lambda: a & b,
                "|": lambda: a | b, "^": lambda: a ^ b}[op]()

    # Python text: names in subst are replaced by their (Python) text
    def py(self, subst=None, t=None):
        subst = subst or {}
        t = self.tree if t is None else t
        k = t[0]
        if k == "num":
            return str(t[1])
        if k == "name":
            return subst.get(t[1], t[1])
        if k == "?":
            return "(%s if %s else %s)" % (self.py(subst, t[2]),
                                           self.py(subst, t[1]),
                                           self.py(subst, t[3]))
        if k == "un":
            inner = self.py(subst, t[2])
            return "(not %s)" % inner if t[1] == "!" else \
                "(%s%s)" % (t[1], inner)
        if k == "call":
            a = [self.py(subst, x) for x in t[2]]
            f = t[1]
            if f in ("min", "max", "abs"):
                return "%s(%s)" % (f, ", ".join(a))
            if f == "log2":
                return "((%s).bit_length() - 1)" % a[0]
            if f == "is_pow2":
                return "(%s > 0 and (%s & (%s - 1)) == 0)" % (a[0], a[0],
                                                              a[0])
            if f == "ceil_div":
                return "(-(-%s // %s))" % (a[0], a[1])
            return "(%s // %s)" % (a[0], a[1])
        op = {"&&": "and", "||": "or", "/": "//"}.get(t[1], t[1])
        return "(%s %s %s)" % (self.py(subst, t[2]), op,
                               self.py(subst, t[3]))

    def factors(self, t=None):
        """The operands of a top-level product a * b * ..."""
        t = self.tree if t is None else t
        if t[0] == "bin" and t[1] == "*":
            return self.factors(t[2]) + self.factors(t[3])
        return [t]


def strip_parens(text):
    """A Python text without the outer parentheses py() puts around it."""
    while text.startswith("(") and text.endswith(")"):
        depth = 0
        for i, c in enumerate(text):
            depth += c == "("
            depth -= c == ")"
            if depth == 0 and i < len(text) - 1:
                return text
        text = text[1:-1]
    return text
