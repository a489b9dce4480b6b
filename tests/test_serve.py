"""The live shoe page: exact edges card by card, in Flask's test client and in a real headless browser."""

from __future__ import annotations

import shutil
import threading
from fractions import Fraction
from pathlib import Path

import pytest

from exactodds.analysis import analyze
from exactodds.certificate import verify
from exactodds.documents import read_document
from exactodds.serve import create_app
from exactodds.shoe import Shoe

pytest.importorskip("flask")


@pytest.fixture(scope="module")
def client():
    return create_app(decks=8).test_client()


def test_edges_are_the_exact_edges_of_the_remaining_cards(client) -> None:
    dealt = ["8s", "9h", "8d", "9c", "8c", "Ks"]
    r = client.post("/api/edges", json={"decks": 8, "removed": dealt, "wagers": ["dragon-7-insurance", "tie:9-to-1"]})
    assert r.status_code == 200
    data = r.get_json()
    assert data["cards_left"] == 416 - 6 and data["removed"] == 6
    shoe = Shoe.decks(8).remove(*dealt)
    for row in data["wagers"]:
        want = analyze(shoe, wagers=[row["key"]])[0].expected_return
        assert Fraction(row["expected_return"]) == want and row["favourable"] == (want > 0)


@pytest.mark.parametrize("body, words", [
    ({"decks": 0, "removed": [], "wagers": ["tie"]}, "decks"),
    ({"decks": 1, "removed": ["As", "As"], "wagers": ["tie"]}, "no more"),
    ({"decks": 8, "removed": ["Zz"], "wagers": ["tie"]}, "unknown card"),
    ({"decks": 8, "removed": [], "wagers": ["royal-9-progressive:$5"]}, "progressive"),
    ({"decks": 8, "removed": [], "wagers": []}, "choose"),
    ("not json", "JSON object"),
])
def test_bad_requests_are_one_line_errors(client, body, words) -> None:
    r = client.post("/api/edges", json=body) if isinstance(body, dict) else client.post("/api/edges", data=body)
    assert r.status_code == 400 and words in r.get_json()["error"]


def test_page_table_and_certificate(client, tmp_path: Path) -> None:
    page = client.get("/").get_data(as_text=True)
    assert "dragon-7-insurance:standard" in page and "<script>" in page
    table = client.get("/table/tie/8-to-1?decks=8&removed=Ks,9h").get_data(as_text=True)
    assert "Tie" in table and "<table>" in table
    r = client.get("/certificate/tie/8-to-1?decks=8&removed=Ks,9h")
    assert "attachment" in r.headers["Content-Disposition"]
    path = tmp_path / "c.html"
    path.write_bytes(r.get_data())
    document, kind, _ = read_document(str(path))
    assert kind == "html" and verify(document)[0] and document["inputs"]["shoes"][0]["remove"] == ["Ks", "9h"]


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(_chromium() is None, reason="Debian's chromium is not installed")
def test_in_a_real_browser_enter_cards_see_the_edge_change_download_a_certificate(tmp_path: Path) -> None:
    playwright = pytest.importorskip("playwright.sync_api")
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, create_app(decks=8))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/"
    try:
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=_chromium(), args=[
                "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run"])
            page = browser.new_page(accept_downloads=True)
            page.goto(url)
            row = page.locator("tr[data-key='dragon-7-insurance:standard'] td.edge")
            page.wait_for_function("document.querySelectorAll('#edges tbody tr').length > 0")
            before = row.inner_text()
            assert before == "-7.6113%"                                    # off the top of 8 decks
            page.fill("#card", "8s 9h 8d 9c 8c 9s 8h 9d")                    # naturals out: Dragon 7 improves
            page.press("#card", "Enter")
            page.wait_for_function("document.querySelector('#cards').textContent.includes('9d')")
            after = row.inner_text()
            shoe = Shoe.decks(8).remove("8s", "9h", "8d", "9c", "8c", "9s", "8h", "9d")
            want = analyze(shoe, wagers=["dragon-7-insurance"])[0].expected_return
            assert after != before and Fraction(row.get_attribute("title")) == want
            page.fill("#card", "Zz")
            page.press("#card", "Enter")
            page.wait_for_function("document.querySelector('#error').textContent.length > 0")
            assert "unknown card" in page.inner_text("#error")
            with page.expect_download() as info:
                page.click("tr[data-key='dragon-7-insurance:standard'] a.certificate")
            saved = tmp_path / "certificate.html"
            info.value.save_as(saved)
            browser.close()
    finally:
        server.shutdown()
    document, kind, _ = read_document(str(saved))
    assert kind == "html" and verify(document)[0]
    assert len(document["inputs"]["shoes"][0]["remove"]) == 8


@pytest.mark.parametrize("url, words", [
    ("/table/tie/8-to-1?removed=Ks&removed=Kh", "'removed' given twice"),
    ("/certificate/tie/8-to-1?decks=8&decks=6", "'decks' given twice"),
    ("/table/tie/8-to-1?deck=6", "unknown query parameter 'deck'"),
    ("/certificate/tie/8-to-1?decks=6&remove=Ks", "unknown query parameter 'remove'"),
])
def test_f14_a_repeated_or_unknown_query_parameter_is_refused(client, url, words) -> None:
    r = client.get(url)
    assert r.status_code == 400 and words in r.get_json()["error"]
    assert len(r.get_json()["error"].splitlines()) == 1


@pytest.mark.parametrize("body, words", [
    ('{"decks": 8, "removed": [], "wagers": ["tie"], "wagerz": ["banker"]}', "unknown key 'wagerz'"),
    ('{"decks": 8, "decks": 6, "removed": [], "wagers": ["tie"]}', "'decks' given twice"),
    ('{"decks": 8, "removed": ["Ks"], "removed": ["Kh"], "wagers": ["tie"]}', "'removed' given twice"),
])
def test_f14_api_edges_refuses_an_unknown_or_repeated_key(client, body, words) -> None:
    r = client.post("/api/edges", data=body, content_type="application/json")
    assert r.status_code == 400 and words in r.get_json()["error"]


def test_f14_api_edges_counts_the_cards_removed(client) -> None:
    r = client.post("/api/edges", json={"decks": 8, "removed": ["Ks,Kh,Kd,Kc", "9h"], "wagers": ["tie:8-to-1"]})
    data = r.get_json()
    assert r.status_code == 200 and data["removed"] == 5 and data["cards_left"] == 416 - 5
    want = analyze(Shoe.decks(8).remove("Ks", "Kh", "Kd", "Kc", "9h"), wagers=["tie:8-to-1"])[0].expected_return
    assert Fraction(data["wagers"][0]["expected_return"]) == want
