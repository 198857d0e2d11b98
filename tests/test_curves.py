"""Published throughput-versus-interactivity curves (lib/llm_arithmetic/lab/data/published_curves.csv,
issue 30 item 7): the published numbers agree with each other, and no point beats its bound."""
import pytest

from llm_arithmetic.estimate import estimate
from llm_arithmetic.lab.curves import curve_names, forecast_points, load_curve
from llm_arithmetic.core.errors import InputError


@pytest.mark.parametrize("name", curve_names())
def test_one_request_at_a_time_matches_its_own_latencies(name):
    """At concurrency 1 one request takes TTFT + (n - 1) x ITL for its n output tokens: the
    published throughput must be n over that (a check of the page against itself, and of the
    reading 'throughput counts output tokens')."""
    c = load_curve(name)
    p = c.points[0]
    assert p.concurrency == 1
    n = c.generated_tokens
    assert n / (p.ttft_seconds + (n - 1) * p.itl_seconds) == pytest.approx(
        p.throughput_tokens_per_second, rel=2e-3)


@pytest.mark.parametrize("name", curve_names())
def test_no_point_beats_the_bound(name):
    """Each point's speed per user is under the bound's at batch 1 (the fastest a user can be
    served), and its throughput per chip under the bound's at the largest batch that fits."""
    c = load_curve(name)
    pts = forecast_points(c)
    fastest_user = max(p["tokens_per_second_per_user"] for p in pts)
    most_per_chip = max(p["tokens_per_second_per_chip"] for p in pts)
    for p in c.points:
        assert p.tokens_per_second_per_user < fastest_user
        assert p.tokens_per_second_per_chip < most_per_chip
    e = estimate(c.model_key, batch=1, **c.estimate_args())
    assert pts[0]["tokens_per_second_per_user"] == pytest.approx(e.tokens_per_second_per_user)


def test_unknown_curve_names_the_known_ones():
    with pytest.raises(InputError, match="nim-llama-3.3-70b-2xh100-fp8"):
        load_curve("no-such-curve")


@pytest.mark.parametrize("runtime,hardware,said", [
    (None, None, None), ("vLLM", None, None), ("llama.cpp", None, None),
    ("mlx-lm", None, "mlx-lm has no measured decode rows on datacenter GPU chips"),
    ("llama.cpp", "tpu-v5p", "no measured row is on a chip of this kind (accelerator)")])
def test_the_forecast_band_says_what_it_borrows_only_when_it_borrows(runtime, hardware, said):
    """The frontier figure's forecast band (plots.forecast_over_curve, from forecast_points'
    decode_caveat) carries, as its legend's title, the caveat describe prints for the same
    deployment without a prompt (the band is of the decode forecast: time per output token
    and the rate per chip it gives), and nothing where the band's terms are the runtime's own:
    the runtime-agnostic forecast, and vLLM and llama.cpp, which have datacenter GPU decode
    rows; mlx-lm has none (counted from the rows), and no row is on a TPU. The figure with its
    note passes the book's figure check."""
    import dataclasses

    from llm_arithmetic.book import plots
    from llm_arithmetic.book.figure_check import check_figure
    from llm_arithmetic.forecast import forecast
    from llm_arithmetic.lab import measurements as M

    c = load_curve("nim-llama-3.3-70b-2xh100-fp8")
    if hardware:
        c = dataclasses.replace(c, hardware_key=hardware)
    rows = sum(1 for r in M.fit_rows("decode") if r.runtime == runtime
               and r.device_class == "datacenter-gpu")
    if runtime in ("vLLM", "llama.cpp", "mlx-lm"):
        assert (rows == 0) == (runtime == "mlx-lm"), rows
    pts = forecast_points(c, runtime=runtime)
    ax = plots.forecast_over_curve(c, pts)
    title = " ".join(ax.get_legend().get_title().get_text().split())
    args = {k: v for k, v in c.estimate_args().items() if k not in ("prompt", "generate")}
    described = forecast(c.model_key, runtime=runtime, **args)["forecast_caveat"]
    if said is None:
        assert title == "" and described is None
    else:
        assert said in described and title == f"Band: {described}."
    check_figure(ax.figure)
