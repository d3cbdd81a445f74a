compilexx main.cpp
linkxx -o cxx-ctor-dtor main.o
check cxx-ctor-dtor
