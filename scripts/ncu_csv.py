"""What scripts/plan_vs_ncu.py and model_vs_ncu.py share in reading
Nsight Compute's CSV pages."""


def number(text):
    """A CSV cell as a float (ncu may print thousands separators), None
    where it holds none."""
    text = (text or "").replace(",", "").strip()
    try:
        return float(text)
    except ValueError:
        return None
