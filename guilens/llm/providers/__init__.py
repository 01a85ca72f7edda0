"""The providers behind `LLMClient`: the Anthropic Messages API and OpenAI chat completions.

Each turns guilens's canonical request (the Messages API shape) into its wire
body, sends one try, and says what a failure was (`base.Provider`); the client
does the rest once for both.
"""
