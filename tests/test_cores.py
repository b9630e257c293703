"""The slow lane's passes that run examples share the machine's cores (conftest.Cores): a pass waits while
the cores it wants are held, and takes them all at once or none."""

from __future__ import annotations

import threading
import time

from conftest import Cores


def test_a_pass_takes_a_free_core_and_waits_for_all_it_wants_at_once(tmp_path):
    cores, events = Cores(tmp_path, 2), []

    def whole_machine() -> None:
        with cores.held(2):
            events.append("both")

    with cores.held(1):
        waiting = threading.Thread(target=whole_machine)
        waiting.start()
        with cores.held(1):  # the second core is free: taken, though a pass waits for both
            events.append("one")
        time.sleep(0.6)  # past one of its tries: it still waits for the core held here
        events.append("released")
    waiting.join(timeout=30)
    assert events == ["one", "released", "both"]


def test_a_pass_that_wants_more_than_there_are_takes_them_all(tmp_path):
    cores, other, events = Cores(tmp_path, 2), Cores(tmp_path, 2), []  # another worker's view of the same cores

    def one_core() -> None:
        with other.held(1):
            events.append("one")

    with cores.held(5):
        waiting = threading.Thread(target=one_core)
        waiting.start()
        time.sleep(0.6)  # past one of its tries
        events.append("released")  # no core was left for it
    waiting.join(timeout=30)
    assert events == ["released", "one"]
