print("voice-eval: not yet")
