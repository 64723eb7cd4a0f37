"""GPT-2's byte-level BPE from a checkpoint's vocab.json and merges.txt, through the PyPI `tokenizers`
package (the optional extra: pip install 'tinytui[gpt2]'), imported only when a checkpoint is loaded.

Text becomes pieces as vocab.json spells them ('The', 'Ġriver', 'Ġruns': Ġ is the byte-level alphabet's
space), and each piece's id is its number in vocab.json, so a prompt gets the ids transformers' GPT-2
tokenizer gives. "<|endoftext|>" is one special token wherever it appears in the text, as in GPT-2's
tokenizer (transformers' GPT2Tokenizer treats no other piece so).

The two files are parsed here, bounded and checked, and handed to `tokenizers` as Python objects: the
package never opens a file itself. Every problem is a TokenizerFileError naming the file, one line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tinytui.model import checks
from tinytui.model.io.field_checks import ModelFileError, read_int
from tinytui.model.io.safe_io import TextFileError, read_utf8

INSTALL = "pip install 'tinytui[gpt2]'"
MAX_VOCAB_BYTES = 16 * 2**20  # GPT-2's vocab.json is 1 MB, its merges.txt 456 KB
MAX_TOKEN_CHARS = 128  # a piece shown in a table; GPT-2's longest has 64 characters
SPECIAL = "<|endoftext|>"  # kept whole, never split by BPE


class TokenizerFileError(ModelFileError):
    """vocab.json or merges.txt cannot be used, or the tokenizers package is missing; one line."""


def require_tokenizers(folder: Path) -> Any:
    """The tokenizers package, or a one-line error saying how to install it."""
    try:
        import tokenizers
    except ImportError:
        raise TokenizerFileError(
            f"{folder}: a GPT-2 checkpoint needs the tokenizers package, which is not installed: {INSTALL}"
        ) from None
    return tokenizers


class BPE:
    """A checkpoint's tokenizer: pieces(text), ids(text), and target() for the --target rule."""

    def __init__(self, vocab: dict[str, int], merges: list[tuple[str, str]], folder: Path) -> None:
        tk = require_tokenizers(folder)
        self.vocab = vocab
        self.specials = (SPECIAL,) if SPECIAL in vocab else ()
        try:
            model = tk.models.BPE(vocab=vocab, merges=merges)
        except Exception as exc:  # a merge of pieces vocab.json lacks, say (tokenizers' own exception)
            why = " ".join(str(exc).split())[:200]  # its message may run to several lines
            raise TokenizerFileError(f"{folder / 'merges.txt'}: does not fit vocab.json ({why})") from None
        tok = tk.Tokenizer(model)
        tok.pre_tokenizer = tk.pre_tokenizers.ByteLevel(add_prefix_space=False)  # GPT-2's own split
        tok.decoder = tk.decoders.ByteLevel()
        if self.specials:
            tok.add_special_tokens([tk.AddedToken(t, special=True) for t in self.specials])
        self._tok = tok

    def ids(self, text: str) -> list[int]:
        return list(self._encoded(text).ids)

    def pieces(self, text: str) -> tuple[str, ...]:
        return tuple(self._encoded(text).tokens)

    def _encoded(self, text: str) -> Any:
        """The package's encoding of text; checks.Invalid when the package panics, as it does when a
        tokenizer.json's own regular expression backtracks past its limit on the text (say (a+)+$
        on thirty a's): pyo3 raises a Rust panic as PanicException, which is no Exception."""
        try:
            return self._tok.encode(text, add_special_tokens=False)
        except BaseException as exc:
            if not _is_panic(exc):
                raise
            why = " ".join(str(exc).split())[:200]
            raise checks.Invalid(f"the tokenizer cannot split this text ({why})") from None

    def text(self, pieces: Sequence[str]) -> str:
        """The text pieces stand for (the inverse of pieces() for any text); the pieces as they are
        spelt, joined, if the package panics decoding them (see _encoded)."""
        try:
            return self._tok.decode([self.vocab[p] for p in pieces], skip_special_tokens=False)
        except BaseException as exc:
            if not _is_panic(exc):
                raise
            return "".join(pieces)

    def target(self, text: str) -> str:
        """What --target names: a word that is one piece after a space ('Paris' -> 'ĠParis', the next
        word of a prompt), else the piece as vocab.json spells it ('Ġwood', 'ar', '<|endoftext|>'), else
        the one piece the text is (' wood'). Text spelt with the byte alphabet's own letters (Ġ…) or a
        special token is always the piece itself."""
        if text in self.vocab and (text in self.specials or self.pieces(text) != (text,)):
            return text  # 'Ġwood': typed as vocab.json spells it, not as text
        as_word = text if text.startswith(" ") else " " + text
        for candidate in (as_word, text):
            pieces = self.pieces(candidate)
            if len(pieces) == 1:
                return pieces[0]
        pieces = self.pieces(as_word)
        shown = "·".join(pieces[:6]) + ("·…" if len(pieces) > 6 else "")
        raise checks.Invalid(
            f"{checks.shown(text)} is {len(pieces)} pieces here ({shown}); the target is one piece "
            "(a piece as vocab.json spells it, e.g. 'Ġthe', or a word that is one piece)"
        )


def _is_panic(exc: BaseException) -> bool:
    """Whether exc is a Rust panic in the tokenizers package (pyo3_runtime.PanicException, which cannot
    be imported by name)."""
    return type(exc).__name__ == "PanicException"


def load(folder: Path) -> BPE:
    """The tokenizer of a checkpoint folder: its vocab.json and merges.txt, checked."""
    require_tokenizers(folder)
    return BPE(read_vocab(folder / "vocab.json"), read_merges(folder / "merges.txt"), folder)


def read_text(path: Path, max_bytes: int = MAX_VOCAB_BYTES) -> str:
    """A small text file of a checkpoint: regular, bounded, UTF-8; TokenizerFileError otherwise."""
    try:
        return read_utf8(path, max_bytes)
    except TextFileError as exc:
        if exc.missing:
            raise TokenizerFileError(f"{path}: missing ({FOLDER_HAS})") from None
        why = exc.reason if exc.byte is not None else f"cannot read the file ({exc.reason})"
        raise TokenizerFileError(f"{path}: {why}") from None


FOLDER_HAS = "a GPT-2 checkpoint folder has config.json, model.safetensors, vocab.json and merges.txt"


def read_vocab(path: Path) -> dict[str, int]:
    """piece -> id, the ids exactly 0 … n-1 (so ids and the vocabulary's order are one and the same)."""
    try:
        doc = json.loads(read_text(path), parse_int=read_int)
    except json.JSONDecodeError as exc:
        raise TokenizerFileError(f"{path}: not JSON (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise TokenizerFileError(f"{path}: nested too deeply (expected an object of piece: id)") from None
    if not isinstance(doc, dict) or not doc:
        raise TokenizerFileError(f"{path}: expected a JSON object of piece: id")
    if (
        not all(type(i) is int for i in doc.values())
        or not 0 <= min(doc.values()) <= max(doc.values()) < 10**7
    ):
        piece, i = next((p, i) for p, i in doc.items() if not _is_id(i))
        why = f"id {checks.shown(str(i))} is not a whole number from 0"
        raise TokenizerFileError(f"{path}: {checks.shown(piece)}: {why}")
    ids = sorted(doc.values())
    if ids != list(range(len(doc))):
        gap = next(n for n, i in enumerate([*ids, -1]) if i != n)
        raise TokenizerFileError(f"{path}: the ids must be 0 to {len(doc) - 1}, each once (not so at {gap})")
    if "" in doc:  # no text is split into it, and no --target could name it
        raise TokenizerFileError(f"{path}: '': an empty piece (id {doc['']})")
    _check_pieces(path, doc)
    return doc


def _check_pieces(path: Path, vocab: dict[str, int]) -> None:
    """Pieces are shown on screen: no control or bidi characters, none too long. Byte-level pieces
    never have any (every byte is spelt with a printable letter), so one search of them all joined
    (UNPLAIN: the characters checks.plain_text refuses) clears a real vocabulary at once; only a file
    that fails it is searched piece by piece for the one to name."""
    if not UNPLAIN.search("".join(vocab)) and max(map(len, vocab)) <= MAX_TOKEN_CHARS:
        return
    for piece in vocab:
        try:
            checks.plain_text(piece, "piece", MAX_TOKEN_CHARS)
        except checks.Invalid as exc:
            raise TokenizerFileError(f"{path}: {checks.shown(piece)}: {exc}") from None


# what checks.plain_text refuses, as one character class: category Cc (U+0000–001F, U+007F–009F), the
# line and paragraph separators (Zl, Zp), the bidi embeddings, overrides and isolates, lone surrogates
UNPLAIN = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _is_id(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 10**7


def read_merges(path: Path) -> list[tuple[str, str]]:
    """The merges, first to last: one 'left right' pair a line after an optional '#version' line."""
    lines = read_text(path).splitlines()
    skip = 1 if lines and lines[0].startswith("#version") else 0
    pairs = [(n, line.split(" ")) for n, line in enumerate(lines[skip:], start=1 + skip) if line.strip()]
    bad = next((n for n, parts in pairs if len(parts) != 2 or not parts[0] or not parts[1]), None)
    if bad is not None:
        raise TokenizerFileError(f"{path}:{bad}: expected two pieces separated by one space")
    return [(a, b) for _, (a, b) in pairs]
