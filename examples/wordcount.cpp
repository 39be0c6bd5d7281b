// wordcount: counts the words of a text file on several workers, exactly.
//   wordcount [FILE] [-w N]
// Each worker reads its share of FILE's lines (a byte range, cut at line ends) and feeds them in
// epochs of a fixed number of lines, a few lines to a record. At the end every distinct word is printed once
// on stdout as "WORD COUNT"; a summary goes to stderr. FILE defaults to the GCIDE text that
// scripts/fetch-data.sh puts in data/.
#include "wordcount_main.hpp"

#ifndef TIMELY_DEFAULT_TEXT
#define TIMELY_DEFAULT_TEXT "data/gcide.txt"
#endif

int main(int argc, char** argv) {
  return wordcount::main(argc, argv, "wordcount", TIMELY_DEFAULT_TEXT,
                         [](auto&... args) { wordcount::build(args...); });
}
