// libpoputil: nothing of its own. Poplar ships poputil as a separate library and Makefiles
// written for Poplar link `-lpoputil`; Tessera keeps poputil's code in libpoplar (the engine and
// every library use its option tables), so this library only records its dependency on
// libpoplar, which a program linking `-lpoputil` then loads.
