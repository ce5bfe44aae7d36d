"""Runs ct2_to_ggml.py with faster-whisper's mel filters when neither openai-whisper nor librosa is installed
(not part of the benchkit package; run by the Python that has faster-whisper).

Usage: python ct2_to_ggml_with_fw_filters.py CT2_TO_GGML_PY MODEL_DIR OUT.bin
faster-whisper's FeatureExtractor.get_mel_filters computes the same Slaney-scale filters librosa does.
"""
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("ct2_to_ggml", sys.argv[1])
converter = importlib.util.module_from_spec(spec)
spec.loader.exec_module(converter)
if not (importlib.util.find_spec("whisper") or importlib.util.find_spec("librosa")):
    import numpy as np
    from faster_whisper.feature_extractor import FeatureExtractor

    converter.load_mel_filters = lambda n: (FeatureExtractor.get_mel_filters(16000, 400, n).astype(np.float32),
                                            "faster_whisper FeatureExtractor.get_mel_filters")
sys.argv = [sys.argv[1]] + sys.argv[2:]
converter.main()
