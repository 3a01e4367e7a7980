"""The wiring drawing in docs/hardware.md: valid SVG that names every part it must show.

The drawing and the text describe one wiring: the bridge's pins as firmware/bridge/pins.h
has them, the power through a relay-controlled outlet's normally-on socket, the sense
optocouplers and the camera over the display.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SVG = ROOT / "docs" / "hardware-wiring.svg"
NS = "{http://www.w3.org/2000/svg}"


def _texts() -> str:
    root = ET.parse(SVG).getroot()
    assert root.tag == f"{NS}svg" and root.get("viewBox")
    return " ".join("".join(el.itertext()) for el in root.iter()
                    if el.tag in (f"{NS}text", f"{NS}title", f"{NS}desc"))


def test_wiring_drawing_names_the_sense_wiring_and_the_camera():
    text = _texts()
    for part in ("D10: power output", "D11: power sense", "D12 sense", "D13 sense",
                 "A4 sense", "A5 sense", "PC817", "USB power adapter",
                 "relay-controlled outlet", "normally-on socket", "trigger input",
                 "USB camera", "clamp arm", "15–40 cm", "15° off square",
                 "number display", "digits' region", "A0–A3: stick reader",
                 "Never put a relay"):
        assert part in text, part


def test_wiring_drawing_agrees_with_the_firmware_pins_and_the_text():
    pins = (ROOT / "firmware" / "bridge" / "pins.h").read_text()
    assert re.search(r"D10 = PB2: the power output; D11 = PB3: the power sense", pins)
    doc = (ROOT / "docs" / "hardware.md").read_text()
    assert "](hardware-wiring.svg)" in doc
    for words in ("normally-on socket", "D11", "D12", "PC817", "clamp arm"):
        assert words in doc, words
    # every shape sits inside the drawing
    root = ET.parse(SVG).getroot()
    width, height = (float(v) for v in root.get("viewBox").split()[2:])
    for el in root.iter(f"{NS}rect"):
        x, y = float(el.get("x", 0)), float(el.get("y", 0))
        assert 0 <= x and x + float(el.get("width")) <= width
        assert 0 <= y and y + float(el.get("height")) <= height
