"""Hardware table: names as NVML reports them and as people write them, counts, and what must not match."""

from __future__ import annotations

import pytest

from advisor.perf import hardware

STRIX_HALO = "Radeon 8060S (Ryzen AI Max+ 395, Strix Halo)"


@pytest.mark.parametrize(("name", "device", "count"), [
    ("NVIDIA GeForce RTX 4090", "RTX 4090", 1),
    ("rtx4090", "RTX 4090", 1),
    ("RTX 3090", "RTX 3090", 1),
    ("NVIDIA GeForce RTX 3090 Ti", "RTX 3090 Ti", 1),
    ("NVIDIA GeForce RTX 3060", "RTX 3060", 1),
    ("RTX 3060 8GB", "RTX 3060 8GB", 1),
    ("NVIDIA GeForce RTX 3060 Ti", "RTX 3060 Ti", 1),
    ("2x RTX 5060 Ti 16GB", "RTX 5060 Ti", 2),
    ("H100 SXM", "H100 SXM", 1),
    ("NVIDIA H100 80GB HBM3", "H100 SXM", 1),
    ("NVIDIA H100 PCIe", "H100 PCIe", 1),
    ("NVIDIA H100 NVL", "H100 NVL", 1),
    ("8x H100 (TP8)", "H100 SXM", 8),
    ("NVIDIA H200", "H200", 1),
    ("NVIDIA H20", "H20", 1),
    ("NVIDIA A100-SXM4-80GB", "A100 80GB SXM", 1),
    ("NVIDIA A100-SXM4-40GB", "A100 40GB", 1),
    ("NVIDIA A100 80GB PCIe", "A100 80GB PCIe", 1),
    ("NVIDIA A100-PCIE-40GB", "A100 40GB", 1),
    ("2x A100 80GB (TP2)", "A100 80GB SXM", 2),
    ("NVIDIA L40S", "L40S", 1),
    ("NVIDIA L40", "L40", 1),
    ("NVIDIA A10", "A10", 1),
    ("Tesla T4", "Tesla T4", 1),
    ("NVIDIA RTX 6000 Ada Generation", "RTX 6000 Ada", 1),
    ("8x B200 (TP8 EP1)", "B200", 8),
    ("4x RTX 2080 Ti (TP4)", "RTX 2080 Ti", 4),
    ("M3 Max", "Apple M3 Max", 1),
    ("Apple M3", "Apple M3", 1),
    ("Apple M3 Ultra 256GB", "Apple M3 Ultra", 1),
    ("Apple M4 Pro", "Apple M4 Pro", 1),
    ("AMD Radeon RX 7900 XTX", "Radeon RX 7900 XTX", 1),
    ("AMD Radeon RX 7900 XT", "Radeon RX 7900 XT", 1),
    ("AMD Instinct MI300X", "Instinct MI300X", 1),
    ("AMD Ryzen AI MAX+ 395 / Radeon 8060S (gfx1151), 128GB unified", STRIX_HALO, 1),
    ("Strix Halo", STRIX_HALO, 1),
    ("1x TPU-v4", "TPU v4", 1),
])
def test_lookup_by_the_names_nvml_and_people_write(name: str, device: str, count: int) -> None:
    match = hardware.lookup(name)
    assert match is not None, name
    assert (match.device.name, match.count) == (device, count)


@pytest.mark.parametrize("name", ["NVIDIA GeForce RTX 4090 Laptop GPU", "RTX 3080 Mobile", "not stated",
                                  "paper testbed (not re-verified here)", "Ascend NPU", "", None, "8 GPUs TP8"])
def test_unknown_and_laptop_parts_match_nothing(name: str | None) -> None:
    # a laptop 4090 has 576 GB/s, not the desktop card's 1008: better a named prior than a wrong match
    assert hardware.lookup(name) is None


def test_the_issue_figures_and_the_probe_table_agree() -> None:
    rtx3090, h100 = hardware.by_name("RTX 3090"), hardware.by_name("H100 SXM")
    assert (rtx3090.bandwidth_gbs, rtx3090.fp16_tflops) == (936, 71)
    assert (h100.bandwidth_gbs, h100.fp16_tflops) == (3350, 989)
    from probes.gpu.probe import PEAK_BANDWIDTH_TABLE_GBS

    for key, gbs in PEAK_BANDWIDTH_TABLE_GBS:  # the NVML fallback table in probes/ must not disagree
        match = hardware.lookup(key)
        assert match is not None and match.device.bandwidth_gbs == gbs, key


def test_every_entry_has_positive_figures_and_a_source() -> None:
    names = [d.name for d in hardware.devices()]
    assert len(names) == len(set(names)) > 40
    for d in hardware.devices():
        assert d.bandwidth_gbs > 0 and d.fp16_tflops > 0 and d.memory_gib > 0 and d.source and d.aliases
        assert d.int8_tops is None or d.int8_tops >= d.fp16_tflops


@pytest.mark.parametrize(("name", "count"), [("2x RTX 3090", 2), ("RTX 3090 x2", 2), ("8 GPUs TP8", 8),
                                             ("8-GPU node", 8), ("4 GPUs (TP4)", 4), ("RTX 3090", None)])
def test_count_parsing(name: str, count: int | None) -> None:
    assert hardware.parse_count(name) == count
