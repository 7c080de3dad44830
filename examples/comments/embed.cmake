# embed.cmake - turn page.html into page.c (cm_page_html, a NUL-terminated
# string) at build time: cmake -DIN=page.html -DOUT=page.c -P embed.cmake
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x..,){16})" "\\1\n\t" bytes "${bytes}")
file(WRITE ${OUT}
  "/*\n * page.c - generated from page.html by embed.cmake: the web page\n"
  " * saltbox-comments serves at / and /ui. Do not edit.\n */\n"
  "#include \"comments.h\"\n\nconst char cm_page_html[] = {\n\t${bytes}0x00};\n")
