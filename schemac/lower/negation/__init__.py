"""The `not` pass: negation normal form (`normal_form`), then complements pushed inwards
(`complement`, the pass itself) by value kind (`numbers`, `strings`, `objects`) within what is known
of the instance (`domain`).
"""
