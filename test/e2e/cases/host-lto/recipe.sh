compile helper.c -flto
compile main.c -flto
# The object must really be bitcode, or this case tests nothing new.
head -c 4 main.o | od -An -tx1 | grep -q '42 43 c0 de' || fail "main.o is not LLVM bitcode"
link -flto -fuse-ld=lld --ld-path="$LLD" -o host-lto main.o helper.o
check host-lto
