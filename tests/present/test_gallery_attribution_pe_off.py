"""The gallery's attribution page, as `tinytui attribution`, says a switched-off positional encoding's
0.0000 is the switch's."""

from tinytui.model.io.model_file import load_default
from tinytui.present.gallery_pages import gallery_page
from tinytui.present.view import View
from tinytui.session.session import Session


def _lines(session: Session) -> list[str]:
    page = gallery_page(View.of(session), lambda view: None, "attribution", 0, 100)
    return ["".join(w.text for w in line).strip() for line in page]


def test_the_attribution_page_names_the_switched_off_encoding():
    session = Session(load_default())
    assert any(line.split()[:3] == ["positional", "encoding", "+0.4451"] for line in _lines(session))
    session.toggle("positional_encoding")
    off = [line for line in _lines(session) if line.startswith("PE")]
    assert [line.split()[:4] for line in off] == [["PE", "(switched", "off)", "0.0000▼"]]  # ▼: was 0.4451
