# Finds timely's dependencies, all from Debian packages (no downloads at configure time).
find_package(Threads REQUIRED)
find_package(Boost 1.81 CONFIG REQUIRED COMPONENTS headers)
find_package(CLI11 CONFIG REQUIRED)
