"""choices.py: several texts for one number, cut to those every shape's plan allows."""

from warpsmith.library.choices import agree, choice, settle


def test_agree_keeps_the_options_every_shape_holds_in_the_first_order():
    one = f"x.narrow(2, {choice(['a // 2', 'h * d', 'e'])}, n)"
    two = f"x.narrow(2, {choice(['a * 2 // 3', 'e', 'h * d'])}, n)"
    assert settle(agree([one, two])) == "x.narrow(2, h * d, n)"


def test_agree_refuses_texts_that_differ_outside_a_choice_or_share_no_option():
    assert agree([f"x.narrow(1, {choice(['a'])})", f"x.narrow(2, {choice(['a'])})"]) is None
    assert agree([choice(["a", "b"]), choice(["c"])]) is None


def test_settle_writes_the_first_option_through_containers():
    assert settle({"k": (choice(["a", "b"]) + " + 1",)}) == {"k": ("a + 1",)}
