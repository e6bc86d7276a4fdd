"""The scan reads the program the import runs (E56): a coding cookie other than UTF-8 is refused,
and bytes are decoded as Python's import decodes them."""

import pytest

from warpsmith.verify import static

from .test_static import HONEST

HIDDEN = "# {brk}import sys\n"  # a comment to a UTF-8 reader, code after a newline to the import


@pytest.mark.parametrize("head, brk", [
    ("# coding: utf-7\n", "+AAo-"),
    ("#!/usr/bin/env python\n# -*- coding: raw_unicode_escape -*-\n", "\\u000a"),
    ("#!x\r# vim: set fileencoding=unicode_escape :\n", "\\n"),
    ("\f# coding=latin-1\n", ""),
])
def test_a_cookie_other_than_utf8_is_refused(head, brk):
    source = head + HONEST + HIDDEN.format(brk=brk)
    assert "source-encoding" in {f.rule for f in static.scan(source).rejected}
    data = source.encode("ascii")
    if brk:  # the attack is real: the import runs the hidden line, a str compile does not
        assert "sys" in compile(data, "c.py", "exec").co_names
        assert "sys" not in compile(source, "c.py", "exec").co_names
    scanned = static.scan(data)  # bytes: decoded as the import does, refused all the same
    assert scanned.syntax_error or "source-encoding" in {f.rule for f in scanned.rejected}


@pytest.mark.parametrize("head", ["# -*- coding: utf-8 -*-\n", "# coding=UTF8\n",
                                  "#!/usr/bin/env python\n# vim: fileencoding=utf_8\n", ""])
def test_utf8_cookies_and_no_cookie_are_honest(head):
    assert static.scan(head + HONEST).findings == ()
    assert static.scan((head + HONEST).encode()).findings == ()


def test_bytes_are_decoded_as_the_import_decodes_them():
    data = "# coding: utf-8\nNAME = 'caf\xe9'\n".encode()
    ns: dict = {}
    exec(compile(data, "c.py", "exec"), ns)
    assert static.decode(data).splitlines()[1] == f"NAME = {ns['NAME']!r}"
    assert static.decode(b"\xef\xbb\xbfX = 1\n") == "X = 1\n"  # a UTF-8 BOM is dropped
    with pytest.raises(SyntaxError):  # a BOM with another cookie: the import refuses it too
        static.decode(b"\xef\xbb\xbf# coding: latin-1\nX = 1\n")
    assert static.scan(b"\xef\xbb\xbf# coding: latin-1\nX = 1\n").syntax_error


@pytest.mark.parametrize("codec", ["punycode", "latin-1", "utf-7", "idna", "raw_unicode_escape"])
def test_the_codec_a_cookie_names_never_runs(codec):
    """E109: `# coding: punycode` made static.decode raise UnicodeError (not caught: an
    exception out of verify) and its decoder is quadratic in a run of digits (a stall before
    any deadline). A foreign cookie is refused whatever the text, so the text is read as
    UTF-8 and the named codec is never called."""
    data = f"# coding: {codec}\n".encode() + HONEST.encode() + b"x-" + b"9" * 200_000 + b"\n"
    text = static.decode(data)
    assert text == data.decode()  # punycode's own decoder raises on these digits
    scanned = static.scan(data)
    assert scanned.syntax_error or "source-encoding" in {f.rule for f in scanned.rejected}
    latin = "# coding: latin-1\nNAME = 'caf\xe9'\n".encode("latin-1")
    assert static.decode(latin).splitlines()[1] == "NAME = 'caf\ufffd'"  # UTF-8's reading
