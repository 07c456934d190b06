"""A training query asked without its function's name: the name's words go, whatever their inflection; a query
that would say too little stays whole; which epochs ask it so is seeded, so a resumed run asks the same."""

from bench.train.asking import asked, name_terms, without_name


def test_the_names_own_words_are_its_last_parts_words_of_three_letters_or_more():
    assert name_terms("Locale.month_name") == {"monthname", "month", "name"}
    assert name_terms("Arrow.to") == frozenset()
    assert name_terms(None) == frozenset()


def test_the_words_of_the_name_are_dropped_in_any_inflection():
    query = "Returns the name of a month for the given months of the year"
    assert without_name(query, "Locale.month_name") == "Returns the of a for the given of the year"
    query = "Parsing the header of an incoming HTTP request"
    assert without_name(query, "parseHeader") == "the of an incoming HTTP request"


def test_a_query_the_name_says_nothing_of_or_that_would_be_left_empty_stays_whole():
    assert without_name("Close every idle connection in the pool", "shutdown") == (
        "Close every idle connection in the pool"
    )
    assert without_name("Gets the user name", "getUserName") == "Gets the user name"


def test_the_share_of_steps_asked_without_the_name_is_seeded_by_epoch_and_query():
    query, symbol = "Returns the month names for a specified month of the year", "month_name"
    steps = [asked(query, symbol, share=0.5, seed=0, epoch=e, key=k) for e in range(4) for k in range(50)]
    assert steps == [asked(query, symbol, share=0.5, seed=0, epoch=e, key=k) for e in range(4) for k in range(50)]
    dropped = sum(step != query for step in steps)
    assert 60 < dropped < 140
    assert all(asked(query, symbol, share=0.0, seed=0, epoch=e, key=1) == query for e in range(4))
