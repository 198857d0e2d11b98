"""Ground truth for several audio clips in one prompt (tests/test_audio.py, SEVERAL_PRINTED):
each clip's tokens as the processors count them, and the FLOPs torch's FlopCounterMode counts
for ONE call of the audio encoder over all the clips, as a prompt's clips are processed.

Not part of ``make test`` and not imported by the package: it needs torch and transformers
(5.24.0, torch 2.13.0+cpu were used), in an environment outside the repository. Run from the
repository root, one family at a time (q25: Qwen2.5-Omni, q3: Qwen3-Omni, both with 2 encoder
layers and eager attention, random weights, also each clip alone; g3: Gemma 3n E2B, g4:
Gemma 4 E2B and E4B, whole encoders and embedders on the meta device)::

    /tmp/gt-venv/bin/python scripts/ground_truth/audio_clips.py q25

Clips are silence of round(S x 16000) samples.
"""
import json, sys, torch, numpy as np
from torch.utils.flop_counter import FlopCounterMode
from transformers import WhisperFeatureExtractor
from transformers.models.qwen2_5_omni import modeling_qwen2_5_omni as m25, processing_qwen2_5_omni as p25
from transformers.models.qwen2_5_omni.configuration_qwen2_5_omni import Qwen2_5OmniAudioEncoderConfig
from transformers.models.qwen3_omni_moe import modeling_qwen3_omni_moe as m3, processing_qwen3_omni_moe as p3
from transformers.models.qwen3_omni_moe.configuration_qwen3_omni_moe import Qwen3OmniMoeAudioEncoderConfig
D = "lib/llm_arithmetic/catalog/data/models/"
def cfg(name): return json.load(open(D + name + "/config.json"))
def flops(f):
    with FlopCounterMode(display=False) as fc:
        with torch.no_grad(): f()
    return fc.get_total_flops()
fe = WhisperFeatureExtractor(feature_size=128, chunk_length=300)
which = sys.argv[1]
CASES = [(10, 0.5, 2.37), (0.5, 1.37), (30, 10, 5)]
if which in ("q25", "q3"):
    for clips in CASES:
        xs = [np.zeros(round(s * 16000), dtype=np.float32) for s in clips]
        if which == "q25":
            m = fe(xs, sampling_rate=16000, return_attention_mask=True, padding="max_length")["attention_mask"].sum(-1)
            F = [int(v) for v in m]; T = [int(v) for v in p25._get_feat_extract_output_lengths(torch.tensor(F))]
            ac = cfg("qwen2.5-omni-7b")["thinker_config"]["audio_config"]; ac["encoder_layers"] = 2
            enc = m25.Qwen2_5OmniAudioEncoder._from_config(Qwen2_5OmniAudioEncoderConfig(**ac), attn_implementation="eager")
        else:
            m = fe(xs, sampling_rate=16000, return_attention_mask=True, padding=True, truncation=False)["attention_mask"].sum(-1)
            F = [int(v) for v in m]; T = [int(v) for v in p3._get_feat_extract_output_lengths(torch.tensor(F), 50)]
            ac = cfg("qwen3-omni-30b-a3b-instruct")["thinker_config"]["audio_config"]; ac["encoder_layers"] = 2
            enc = m3.Qwen3OmniMoeAudioEncoder._from_config(Qwen3OmniMoeAudioEncoderConfig(**ac), attn_implementation="eager")
        enc.eval()
        feats = torch.randn(128, sum(F))
        fl = flops(lambda: enc(input_features=feats, feature_lens=torch.tensor(F)))
        # each clip alone, for comparison
        alone = [flops(lambda f=f: enc(input_features=torch.randn(128, f), feature_lens=torch.tensor([f]))) for f in F]
        print(which, clips, "frames", F, "tokens", T, "flops_together", fl, "alone", alone, "sum_alone", sum(alone), flush=True)
else:
    from transformers.models.gemma3n import Gemma3nAudioFeatureExtractor, Gemma3nAudioConfig
    from transformers.models.gemma3n.modeling_gemma3n import Gemma3nAudioEncoder, Gemma3nMultimodalEmbedder
    from transformers.models.gemma3n.configuration_gemma3n import Gemma3nTextConfig
    from transformers.models.gemma4 import Gemma4AudioFeatureExtractor
    from transformers.models.gemma4.configuration_gemma4 import Gemma4AudioConfig, Gemma4Config
    from transformers.models.gemma4.modeling_gemma4 import Gemma4AudioModel
    import transformers.models.gemma4.modeling_gemma4 as mg4
    for clips in [(10, 1, 7.3), (0.05, 2.37)]:
        xs = [np.zeros(round(s * 16000), dtype=np.float32) for s in clips]
        for name in ([ "gemma-3n-e2b"] if which == "g3" else ["gemma-4-e2b", "gemma-4-e4b"]):
            c = cfg(name)
            if which == "g3":
                a = Gemma3nAudioFeatureExtractor()(xs, return_tensors="pt")
                with torch.device("meta"):
                    enc = Gemma3nAudioEncoder(Gemma3nAudioConfig(**c["audio_config"]))
                    emb = Gemma3nMultimodalEmbedder(Gemma3nAudioConfig(**c["audio_config"]), Gemma3nTextConfig(**c["text_config"]))
                feats = a["input_features"].to("meta"); mask = a["input_features_mask"]
                def run():
                    o = enc(feats, ~mask.to("meta"))
                    emb(inputs_embeds=o.last_hidden_state if hasattr(o, "last_hidden_state") else o[0])
                toks = [188] * len(xs)
            else:
                a = Gemma4AudioFeatureExtractor()(xs, return_tensors="pt")
                gc = Gemma4Config(**{k: v for k, v in c.items()})
                with torch.device("meta"):
                    enc = Gemma4AudioModel(gc.audio_config)
                    emb = mg4.Gemma4MultimodalEmbedder(gc.audio_config, gc.text_config)
                feats = a["input_features"].to("meta"); mask = a["input_features_mask"]
                def run():
                    o = enc(feats, mask.to("meta"))
                    emb(inputs_embeds=o.last_hidden_state)
                toks = []
                for i in range(len(xs)):
                    mm = a["input_features_mask"][i]; t = len(mm)
                    for _ in range(2):
                        to = (t + 2 - 3) // 2 + 1; mm = mm[::2][:to]; t = len(mm)
                    toks.append(int(mm.sum()))
            print(name, clips, "shape", tuple(a["input_features"].shape), "mask_frames", [int(v) for v in a["input_features_mask"].sum(-1)], "tokens", toks, "flops_together", flops(run), flush=True)
