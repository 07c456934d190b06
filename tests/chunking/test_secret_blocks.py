"""A YAML block scalar under a secret-sounding name is found on the whole file: a snippet that starts in its body
carries the block's last line (`Snippet.secret_until`), which its own text cannot tell, and only such a snippet."""

from smartsearch_ls.chunking import chunk_file
from smartsearch_ls.chunking.secret_blocks import secret_blocks
from smartsearch_ls.chunking.snippet import split_lines


def test_snippets_starting_inside_a_secret_block_scalar_are_marked_and_others_are_not() -> None:
    lines = ["service:", "  name: billing", "  password: |"]  # the block: lines 3-73
    lines += [f"    line{n:02d}-of-the-secret" for n in range(70)]
    lines += ["  description: |"]  # 74-144: no secret word in its name
    lines += [f"    line{n:02d} of what the service does" for n in range(70)]
    lines += ["  port: 8080"]
    snippets = chunk_file("deploy/values.yaml", "\n".join(lines) + "\n").snippets
    inside = [s for s in snippets if 3 < s.start_line <= 73]
    assert inside, [(s.start_line, s.end_line) for s in snippets]
    for snippet in snippets:
        expected = 73 if snippet in inside else 0
        assert (snippet.secret_until, snippet.key_until) == (expected, 0), (snippet.start_line, snippet.end_line)


def test_block_scalars_are_found_by_their_name_whatever_their_value_and_line_ends() -> None:
    """By the name alone (chunking cannot ask the judge's `is_secret`): `token: >` over prose is marked too."""
    text = "a: 1\r\ntoken: >-\r\n  some words\r\n  more words\r\n\r\nnotes: |\r\n  free text\r\nkey: |\n  k\n"
    assert secret_blocks(split_lines(text)) == [(2, 4), (8, 9)]
    assert secret_blocks(["password: |", "no body under it", "secret: value"]) == []


def test_a_block_goes_on_past_empty_lines_in_its_value_and_many_blocks_are_marked_alike() -> None:
    assert secret_blocks(["password: |", "  a", "", "  b", "", "next: 1"]) == [(1, 4)]
    lines = [line for n in range(300) for line in (f"api_key_{n}: |", "  value", "")]
    snippets = chunk_file("values.yaml", "\n".join(lines) + "\n").snippets
    blocks = secret_blocks(lines)
    for snippet in snippets:
        inside = next((last for first, last in blocks if first < snippet.start_line <= last), 0)
        assert snippet.secret_until == inside


def test_block_scalars_are_found_whatever_their_head_says_around_the_name_and_indicator() -> None:
    """A comment after the indicator, a list item's dash (the value is indented under the key after `- `) and a
    quoted key still make a block scalar's head; a block under a name of no secret word is not one."""
    lines = ["users:", "  - password: | # the prod one", "      v", "      w", "    name: bob"]  # 2-4
    lines += ['"password": >-', "  v", "'api_key': |", "  v"]  # 6-7, 8-9
    lines += ["- notes: | # see the token docs", "    n", "- token: |", "  x: 1"]  # the dash's width is indentation
    assert secret_blocks(lines) == [(2, 4), (6, 7), (8, 9)]


def test_a_block_scalar_head_may_carry_an_anchor_or_a_tag_and_its_value_start_below_an_empty_line() -> None:
    """YAML writes an anchor (`&pw`) or a tag (`!!str`) between the key and the indicator, and allows empty lines
    above a block's first line: such a block is marked too, from its head to its last line."""
    lines = ["password: &pw |", "  v", "token: !!binary >-", "  v", "secret: !!str &s |", "", "  v", "next: 1"]
    assert secret_blocks(lines) == [(1, 2), (3, 4), (5, 7)]
