"""The engines the bench compares, one module each: aural, faster_whisper (fw-fp32, fw-int8), whisper_cpp.

Each module builds its engine's command line explicitly and reads the engine's own report of its timings; `base`
holds what they share.
"""
