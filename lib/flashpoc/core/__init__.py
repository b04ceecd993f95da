"""core: what every layer shares and that imports nothing else of flashpoc but itself: errors, named
losses of damaged outputs, atomic files and the results store, number and table words, the engine
registry (names to module paths) and the records the engine API takes and returns."""
