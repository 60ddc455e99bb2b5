#!/usr/bin/python3
"""Makes the CJK fonts Newsdesk bundles: ui/fonts/NotoSansCJKjp-Newsdesk-{Regular,Bold}.otf.

They are subsets of Noto Sans CJK JP, Regular and Bold, as Debian 12 ships it
(package fonts-noto-cjk, version 1:20220127+repack1-1), made with fontTools
(python3-fonttools 4.38.0). `make cjk-font` installs both and runs this
script; the same versions give the same bytes.

The subset holds the characters of the national character sets that everyday
text uses, less what Fyne's own font (Noto Sans) has:

- Japanese: Windows' code page 932 (JIS X 0208 with the NEC and IBM
  extensions: kana, 6,355 kanji and more, ①, ㈱, …), the four jōyō kanji
  outside it (𠮟 塡 剝 頰), and the whole kana and half-width katakana blocks;
- Chinese (simplified): GB 2312 (6,763 hanzi), in Japanese glyph forms where
  the two differ;
- Korean: KS X 1001 (2,350 hangul syllables and 4,888 hanja), and the jamo;
- CJK punctuation, the full-width forms and the vertical compatibility forms;
- the spaces (see charset), with Noto Sans' line height (see same_line_height).

Noto Sans CJK lacks a few characters of these sets (≒, ∼, ◈): the system's
fonts may have them.

Anything else (rare kanji, traditional-only hanzi, the other 8,822 hangul
syllables) still comes from the system's fonts, where it has one.
"""
import os
import subprocess
import sys
import unicodedata

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

SOURCE = "/usr/share/fonts/opentype/noto/NotoSansCJK-{}.ttc"
SOURCE_VERSION = "1:20220127+repack1-1"  # of Debian's fonts-noto-cjk
JP = 0  # the face "Noto Sans CJK JP" in the collection
OUT = "NotoSansCJKjp-Newsdesk-{}.otf"


def decodable(codec, leads, trails):
    """The characters of a double-byte code page."""
    out = set()
    for a in leads:
        for b in trails:
            try:
                out.update(bytes([a, b]).decode(codec))
            except UnicodeDecodeError:
                pass
    return out


def charset(noto_sans):
    chars = set()
    chars |= decodable("cp932", list(range(0x81, 0xA0)) + list(range(0xE0, 0xFD)),
                       list(range(0x40, 0x7F)) + list(range(0x80, 0xFD)))
    chars |= set("𠮟塡剝頰")
    chars |= decodable("gb2312", range(0xA1, 0xF8), range(0xA1, 0xFF))
    chars |= decodable("euc_kr", range(0xA1, 0xFF), range(0xA1, 0xFF))
    blocks = [
        (0x3000, 0x303F),  # CJK symbols and punctuation
        (0x3040, 0x30FF),  # hiragana, katakana
        (0x3130, 0x318F),  # hangul compatibility jamo
        (0x31F0, 0x31FF),  # katakana phonetic extensions
        (0xFE30, 0xFE4F),  # CJK compatibility forms (GBK's vertical punctuation)
        (0xFF00, 0xFFEF),  # half-width and full-width forms
    ]
    for lo, hi in blocks:
        chars.update(chr(c) for c in range(lo, hi + 1))
    out = {ord(c) for c in chars if ord(c) >= 0x80 and ord(c) not in noto_sans}
    # The spaces, although Noto Sans has them: the shaper keeps a space in
    # the font of the text before it (go-text's splitByFace, as Pango
    # does), which must have it, or a space after Japanese shows as a box.
    out |= {c for c in range(0x20, 0x3001) if unicodedata.category(chr(c)) == "Zs"}
    return sorted(out)


def same_line_height(font, noto_sans):
    """Gives font the vertical metrics of Fyne's Noto Sans: Fyne measures a
    line's height with the font of a space, which is now this one."""
    for table, fields in (("hhea", ("ascent", "descent", "lineGap")),
                          ("OS/2", ("sTypoAscender", "sTypoDescender", "sTypoLineGap",
                                    "usWinAscent", "usWinDescent"))):
        for field in fields:
            setattr(font[table], field, getattr(noto_sans[table], field))
    use_typo = 1 << 7
    font["OS/2"].fsSelection = (font["OS/2"].fsSelection & ~use_typo) | (noto_sans["OS/2"].fsSelection & use_typo)
    assert font["head"].unitsPerEm == noto_sans["head"].unitsPerEm


def main():
    version = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "fonts-noto-cjk"],
                             capture_output=True, text=True).stdout
    if version != SOURCE_VERSION:
        print(f"cjkfont.py: fonts-noto-cjk is {version or 'not installed'}, not {SOURCE_VERSION}: "
              "the fonts will differ from the committed ones", file=sys.stderr)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: cjkfont.py FYNE_NOTO_SANS_REGULAR_TTF [OUTDIR (default ui/fonts)]")  # Bold beside it
    noto_sans = {"Regular": TTFont(sys.argv[1]),
                 "Bold": TTFont(sys.argv[1].replace("Regular", "Bold"))}
    unicodes = charset(set(noto_sans["Regular"]["cmap"].getBestCmap()))
    outdir = sys.argv[2] if len(sys.argv) == 3 else "ui/fonts"
    os.makedirs(outdir, exist_ok=True)
    for weight in ("Regular", "Bold"):
        font = TTCollection(SOURCE.format(weight)).fonts[JP]
        options = subset.Options()
        options.layout_features = ["ccmp", "kern"]  # no vertical, proportional or other languages' forms
        options.hinting = False
        options.name_IDs = ["*"]
        options.notdef_outline = True
        sub = subset.Subsetter(options)
        sub.populate(unicodes=unicodes)
        sub.subset(font)
        same_line_height(font, noto_sans[weight])
        font.recalcTimestamp = False  # reproducible: the source's date, not today's
        out = os.path.join(outdir, OUT.format(weight))
        font.save(out, reorderTables=True)
        print(f"{out}: {len(font.getGlyphOrder())} glyphs, {os.path.getsize(out)} bytes")
    copyright = TTCollection(SOURCE.format("Regular")).fonts[JP]["name"].getDebugName(0)
    with open("/usr/share/doc/fonts-noto-cjk/copyright") as f:
        text = f.read()
    ofl = text[text.index("License: SIL-1.1\n -"):].split("\n", 1)[1]
    ofl = ofl[:ofl.index("\nLicense:")] if "\nLicense:" in ofl else ofl
    ofl = "\n".join(line[1:] if line.startswith(" ") else line for line in ofl.splitlines())
    ofl = "\n".join("" if line == "." else line for line in ofl.splitlines())
    with open(os.path.join(outdir, "LICENSE_NotoSansCJK.txt"), "w") as f:
        f.write("NotoSansCJKjp-Newsdesk-Regular.otf and NotoSansCJKjp-Newsdesk-Bold.otf are\n"
                "subsets of Noto Sans CJK JP (https://github.com/googlefonts/noto-cjk),\n"
                "made by scripts/cjkfont.py.\n\n" + copyright + "\n\n" + ofl.strip() + "\n")


if __name__ == "__main__":
    main()
