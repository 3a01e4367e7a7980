"""The engine's one memo: bounded, and a value once put is given back until the bound."""

from __future__ import annotations

from scoring.memo import Memo


def test_a_value_put_is_given_back_and_an_unknown_key_gives_none():
    memo = Memo(4)
    assert memo.get("a") is None
    assert memo.put("a", (1, 2)) == (1, 2)
    assert memo.get("a") == (1, 2) and len(memo) == 1


def test_a_full_memo_starts_again_empty_so_it_never_grows_past_its_bound():
    memo = Memo(3)
    for i in range(10):
        memo.put(i, i * 10)
        assert len(memo) <= 3
    assert memo.get(9) == 90 and memo.get(0) is None


def test_the_rules_carry_their_own_memo_that_is_not_part_of_their_value():
    from scoring.rules import load_rules

    a = load_rules({"extends": "netmahjong", "name": "x"})
    b = load_rules({"extends": "netmahjong", "name": "x"})
    a.memo.put("k", 1)
    assert a == b and b.memo.get("k") is None
    assert "memo" not in a.to_dict() and "memo" not in a.to_dict()["hand"]


def test_a_copied_or_pickled_memo_starts_empty():
    import copy
    import pickle

    memo = Memo(8)
    memo.put("k", 1)
    for other in (copy.deepcopy(memo), copy.copy(memo), pickle.loads(pickle.dumps(memo))):
        assert other.limit == 8 and len(other) == 0
