"""Putting the section into release notes: appended once, replaced in place after, the author's text kept
byte for byte and in order, exactly one section per config whatever the notes held before."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cairn_action.render.stamp import SEPARATOR, apply_stamp, author_notes, stamp_notes
from cairn_action.report.stamp import section_end, section_pattern, section_start


def _section(label: str, config: str = "default") -> str:
    return f"{section_start(config)}\n### {label}\n{section_end(config)}"


_pieces = ["a", " ", "\n", "\r\n", "#", "-", "<!--", "-->", "`", "<!-- cairn:accuracy config=default -->"]
_notes = st.lists(st.sampled_from(_pieces), max_size=20).map("".join)


def test_apply__empty_notes__the_section_alone() -> None:
    assert apply_stamp("", _section("one"), "default") == _section("one")
    assert apply_stamp(None, _section("one"), "default") == _section("one")


def test_apply__first_time__appended_after_a_blank_line() -> None:
    assert apply_stamp("Notes\n", _section("one"), "default") == "Notes\n" + SEPARATOR + _section("one")


@given(before=_notes, after=_notes)
def test_apply__rerun__replaces_in_place_and_keeps_the_author_text(before: str, after: str) -> None:
    notes = before + _section("old") + after
    result = apply_stamp(notes, _section("new"), "default")
    assert result == before + _section("new") + after
    assert apply_stamp(result, _section("new"), "default") == result


@given(author=_notes)
def test_apply__twice__one_section_and_the_author_text_untouched(author: str) -> None:
    once = apply_stamp(author, _section("one"), "default")
    twice = apply_stamp(once, _section("two"), "default")
    assert len(section_pattern("default").findall(twice)) == 1
    assert twice.startswith(author)
    assert twice == (author + SEPARATOR if author else "") + _section("two")


def test_apply__duplicated_sections__collapse_into_the_first() -> None:
    notes = "Intro\n\n" + _section("a") + "\n\nMiddle" + SEPARATOR + _section("b") + "\n\nEnd"
    result = apply_stamp(notes, _section("new"), "default")
    assert result == "Intro\n\n" + _section("new") + "\n\nMiddle" + "\n\nEnd"


def test_apply__other_configs_sections__left_alone() -> None:
    other = _section("fast one", config="fast")
    notes = "Intro" + SEPARATOR + other
    result = apply_stamp(notes, _section("mine"), "default")
    assert result == notes + SEPARATOR + _section("mine")
    assert apply_stamp(result, _section("mine again"), "default").count(other) == 1


def test_apply__unterminated_marker__is_author_text_and_a_new_section_is_appended() -> None:
    notes = f"Intro\n{section_start('default')}\nno end marker"
    result = apply_stamp(notes, _section("mine"), "default")
    assert result == notes + SEPARATOR + _section("mine")


def test_author_notes__sections_cut_out() -> None:
    notes = "Intro" + SEPARATOR + _section("x") + "\ncairn-override: inside"
    assert author_notes(notes) == "Intro" + SEPARATOR + "\ncairn-override: inside"


def test_stamp_notes__crlf_notes_from_the_web_editor__kept_as_they_are() -> None:
    from test_stamp_model import _stamp

    notes = "Line one\r\nLine two\r\n"
    once = stamp_notes(notes, _stamp())
    again = stamp_notes(once, _stamp(stamped_at="2026-12-01T00:00:00Z"))
    assert once.startswith(notes) and again.startswith(notes)
    assert len(section_pattern("default").findall(again)) == 1
