#!/usr/bin/env node
import '../dist/kernel/main.js';
