/** What each bank_wire sub-rail contributes: its own fields, its currency rule, and how to read them. */
export {};
//# sourceMappingURL=variant.js.map