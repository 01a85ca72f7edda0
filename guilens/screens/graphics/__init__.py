"""Full-resolution phone screens in terminals that draw images (Sixel, Kitty graphics, iTerm2).

`probe` asks the terminal what it draws (before Textual starts), `protocols`
encodes frames for each protocol, and `layer` draws them over the cells a
`GraphicsSurface` reserves, around Textual's own screen updates.
"""
