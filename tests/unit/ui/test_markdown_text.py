"""Markdown without colour reads as plain text; headings sit left; no doubled blank rows around
code blocks and tables."""

from __future__ import annotations

from agent_cli.ui.render.render import markdown

SOURCE = """# The title

Some **bold** and `code`.

| name | size |
|------|------|
| a.py | 10 |
| long_name.py | 2000 |

```python
def f():
    return 1
```

After."""


def test_plain_markdown_has_no_markup_and_aligned_tables():
    text = markdown(SOURCE, 60, color=False)
    assert "**" not in text
    assert "`" not in text
    assert "|" not in text
    lines = text.split("\n")
    assert lines[:2] == ["The title", "========="]  # at the left, underlined
    assert "Some bold and code." in lines
    rows = [line for line in lines if "py" in line]
    assert rows[0].index("10") == rows[1].index("2000")  # one column, one start
    assert "    def f():" in lines


def test_no_doubled_blank_rows_around_tables_and_code():
    for color in (False, True):
        text = markdown(SOURCE, 60, color)
        assert "\n\n\n" not in text
        assert not text.startswith("\n")


def test_headings_are_not_centred_in_colour():
    first = markdown("# Title", 80, color=True).split("\n")[0]
    assert not first.startswith(" ")
